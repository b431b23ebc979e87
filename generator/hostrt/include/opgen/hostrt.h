/* opgen/hostrt.h: internal interface of the opgen host runtime (not a CANN header).
 *
 * The host runtime implements, on CPU memory, the ACL subset that aclnn samples and the ctypes backend
 * use, with CANN's names, enum values and signatures (acl/acl.h, aclnn/aclnn_base.h). It is three
 * libraries laid out like a CANN toolkit (lib64/):
 *
 *   libascendcl.so  runtime: aclInit/aclFinalize, devices, contexts, streams, memory, error messages,
 *                   executors and the queue of launched operators, fault injection, leak report;
 *   libnnopbase.so  handles: aclCreateTensor/Scalar/IntArray/BoolArray/FloatArray/TensorList and their
 *                   Destroy calls, the accessors rule checks use, check-failure messages;
 *   libopapi.so     operators: one generated unit per spec (generated/hostrt/<op>.cpp) holding
 *                   CheckParams and the two phases of the aclnn API.
 *
 * A fourth library, libopgen_python.so, embeds Python: the runtime loads it the first time an operator
 * runs in a process that registered no compute callback (a sample), and computes through the
 * operator's NumPy reference kernel. The ctypes backend registers a callback instead.
 */
#ifndef OPGEN_HOSTRT_H_
#define OPGEN_HOSTRT_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

#define OPGEN_EXPORT __attribute__((visibility("default")))

extern "C" {

// ---- libascendcl ---------------------------------------------------------------------------------

// Counts one fallible API call; returns non-zero when fault injection (OPGEN_FAIL_CALL=N) makes this
// call fail, after recording the failure as the recent error message.
OPGEN_EXPORT int opgen_hostrt_inject(const char* api);

// Sets the calling thread's recent error message (aclGetRecentErrMsg); nullptr clears it.
OPGEN_EXPORT void opgen_hostrt_set_error(const char* message);

// The product the runtime emulates: OPGEN_PRODUCT (a tag or any catalogue name), default 910b.
OPGEN_EXPORT const char* opgen_hostrt_product(void);

// Live-handle accounting for the leak report (kind: "aclTensor", "aclScalar", ...).
OPGEN_EXPORT void opgen_hostrt_count(const char* kind, int delta);

// Live handles of a kind ("aclTensor", ...; nullptr: all kinds), "device" allocations or pending "executor"s.
OPGEN_EXPORT long opgen_hostrt_live(const char* kind);

// A memory region an operator reads or writes; checked against live device memory when it runs.
typedef struct {
    const char* name;
    const void* address;
    uint64_t bytes;
} OpgenRegion;

// Creates an executor (phase 1): the JSON request for the compute callback and the regions it touches.
OPGEN_EXPORT aclOpExecutor* opgen_hostrt_new_executor(const char* request, const OpgenRegion* regions,
                                                     size_t count);

// Queues an executor on a stream (phase 2); it runs at the next synchronisation and is then released.
OPGEN_EXPORT aclnnStatus opgen_hostrt_launch(const char* api, void* workspace, uint64_t workspaceSize,
                                             aclOpExecutor* executor, aclrtStream stream);

// The workspace size every operator asks for (a small buffer, so samples exercise that path).
OPGEN_EXPORT uint64_t opgen_hostrt_workspace_size(void);

// The compute callback: receives an executor's JSON request, returns an aclnnStatus and, on failure,
// sets the error message with opgen_hostrt_set_error. nullptr restores the embedded-Python default.
typedef int (*OpgenComputeFn)(const char* request);
OPGEN_EXPORT void opgen_hostrt_set_compute(OpgenComputeFn compute);

// ---- libopgen_python ------------------------------------------------------------------------------

// Runs generator.runtime.cann.hostrt_compute(request) in an embedded interpreter.
OPGEN_EXPORT int opgen_python_compute(const char* request, void (*setError)(const char*));

}  // extern "C"

// The host runtime builds with -fvisibility=hidden; these are its interface between libraries.
#pragma GCC visibility push(default)

namespace opgen {

// ---- libnnopbase: describing arguments (check messages, executor requests) ----------------------

// A value named in a check failure: "name: text", text as the Python validator's describe() gives it.
struct SeenValue {
    std::string name;
    std::string text;
};

SeenValue Seen(const char* name, const aclTensor* value);
SeenValue Seen(const char* name, const aclScalar* value);
SeenValue Seen(const char* name, const aclIntArray* value);
SeenValue Seen(const char* name, const aclBoolArray* value);
SeenValue Seen(const char* name, const aclFloatArray* value);
SeenValue Seen(const char* name, const aclTensorList* value);
SeenValue Seen(const char* name, const char* value);
SeenValue Seen(const char* name, bool value);
SeenValue Seen(const char* name, double value);
SeenValue SeenInteger(const char* name, long long value);
SeenValue SeenUnsigned(const char* name, unsigned long long value);
SeenValue SeenProduct(const std::string& product);

template <class T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
SeenValue Seen(const char* name, T value)
{
    if constexpr (std::is_signed<T>::value) {
        return SeenInteger(name, value);
    } else {
        return SeenUnsigned(name, value);
    }
}

// One check of a spec: its id, status code and name, the doc's text and the rule as doc text.
struct CheckInfo {
    const char* id;
    int code;
    const char* codeName;
    const char* text;
    const char* rule;
};

// Records "aclnn<op>: check '<id>' failed: <text>[ (<detail>)] Rule: <rule>.[ Seen: ...]" as the recent
// error message (the Python validator's message) and returns the check's code.
aclnnStatus Fail(const char* op, const CheckInfo& check, std::vector<SeenValue> seen,
                 const std::string& detail = std::string());

// Records a message and returns the code (failures outside the spec's checks).
aclnnStatus Error(aclnnStatus code, const std::string& message);

bool DtypeIn(aclDataType dtype, std::initializer_list<const char*> names);
bool FormatIn(aclFormat format, std::initializer_list<const char*> names);
bool ProductIn(const std::string& product, std::initializer_list<const char*> tags);

// A dtype table per product (dtype_supported): the dtypes of `product`, empty when it is not listed.
struct ProductDtypes {
    const char* product;
    std::initializer_list<const char*> dtypes;
};
bool DtypeSupported(aclDataType dtype, const std::string& product, std::initializer_list<ProductDtypes> table);

// Python's repr() of a float (shortest round-trip digits), e.g. 0.1, 1e-05, 1e+16, inf.
std::string PyRepr(double value);

// ---- libnnopbase: capturing the arguments of a phase-1 call for its executor ----------------------

class Request {
public:
    Request(const char* op, const char* snake);
    void Add(const char* name, const aclTensor* value);
    void Add(const char* name, const aclTensorList* value);
    void Add(const char* name, const aclScalar* value);
    void Add(const char* name, const aclIntArray* value);
    void Add(const char* name, const aclBoolArray* value);
    void Add(const char* name, const aclFloatArray* value);
    void Add(const char* name, const char* value);
    void Add(const char* name, bool value);
    void Add(const char* name, double value);
    void AddInteger(const char* name, long long value);
    void AddUnsigned(const char* name, unsigned long long value);

    template <class T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
    void Add(const char* name, T value)
    {
        if constexpr (std::is_signed<T>::value) {
            AddInteger(name, value);
        } else {
            AddUnsigned(name, value);
        }
    }

    // Phase 1's last step: the executor and the workspace size, or a null-pointer error.
    aclnnStatus Finish(const char* api, uint64_t* workspaceSize, aclOpExecutor** executor);

private:
    std::string TensorJson(const char* name, const aclTensor* tensor);

    struct Region {
        std::string name;
        const void* address;
        uint64_t bytes;
    };

    std::string json_;
    bool first_ = true;
    std::vector<Region> regions_;
};

}  // namespace opgen

#pragma GCC visibility pop

#endif  // OPGEN_HOSTRT_H_
