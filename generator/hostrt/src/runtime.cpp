/* libascendcl.so of the opgen host runtime: the ACL runtime on CPU memory.
 *
 * aclInit/aclFinalize, devices (OPGEN_DEVICE_COUNT, default 1), contexts, streams, device memory
 * (host memory registered as device memory; every aclrtMemcpy kind is checked against that registry),
 * recent error messages, the emulated product (OPGEN_PRODUCT) and its SoC name, executors and the queue
 * of launched operators. Launched operators run when their stream is synchronised, through the compute
 * callback the ctypes backend registers or, in a plain process (a sample), through the embedded-Python
 * bridge libopgen_python.so loaded from the same folder.
 *
 * Test hooks (environment):
 *   OPGEN_FAIL_CALL=N            the N-th fallible ACL/aclnn call of the process fails (fault injection);
 *   OPGEN_CALL_LOG=path          appends "N api" for every fallible call (to count the injection points);
 *   OPGEN_HOSTRT_CHECK_LEAKS=1   at exit, lists what was not released (handles, device memory, streams,
 *                                contexts, devices not reset, aclFinalize not called) and exits with 99.
 */
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "opgen/catalog.h"
#include "opgen/hostrt.h"

struct aclOpExecutor {
    std::string request;
    struct Region {
        std::string name;
        const void* address;
        uint64_t bytes;
    };
    std::vector<Region> regions;
};

namespace {

struct Stream {
    int32_t device;
    std::vector<aclOpExecutor*> tasks;
};

struct Context {
    int32_t device;
};

struct State {
    std::mutex mutex;
    bool initialized = false;
    std::map<uintptr_t, size_t> device;     // live device allocations: base -> size
    std::set<Stream*> streams;              // created by aclrtCreateStream
    std::map<int32_t, Stream*> defaults;    // default stream of each device in use
    std::set<Context*> contexts;
    std::set<aclOpExecutor*> executors;     // created by phase 1, not launched yet
    std::map<int32_t, long> deviceRefs;     // aclrtSetDevice minus aclrtResetDevice, per device
    std::map<std::string, long> live;       // handles of libnnopbase, by kind
    OpgenComputeFn compute = nullptr;
    int64_t sysParams[3] = {0, 0, 0};
};

// Never destroyed: the leak report runs at exit, after static destructors may have run.
State& Global()
{
    static State* state = new State;
    return *state;
}

thread_local std::string t_error;
thread_local bool t_hasError = false;
thread_local int32_t t_device = -1;
thread_local Context* t_context = nullptr;

std::atomic<long> g_calls{0};

void SetError(const std::string& message)
{
    t_error = message;
    t_hasError = true;
}

aclError Fail(aclError code, const std::string& message)
{
    SetError(message);
    return code;
}

long EnvNumber(const char* name, long fallback)
{
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return fallback;
    }
    char* end = nullptr;
    long value = std::strtol(text, &end, 10);
    return (end != nullptr && *end == '\0') ? value : fallback;
}

int32_t DeviceCount()
{
    long count = EnvNumber("OPGEN_DEVICE_COUNT", 1);
    return count < 1 ? 1 : (count > 64 ? 64 : static_cast<int32_t>(count));
}

// The catalogue key of a product spelling: no whitespace, ASCII lower case, no trailing '.' or '。'.
std::string ProductKey(const char* text)
{
    std::string key;
    for (const char* p = text; *p != '\0'; ++p) {
        unsigned char c = static_cast<unsigned char>(*p);
        if (!std::isspace(c)) {
            key.push_back(static_cast<char>(c < 128 ? std::tolower(c) : c));
        }
    }
    for (;;) {
        if (!key.empty() && key.back() == '.') {
            key.pop_back();
        } else if (key.size() >= 3 && key.compare(key.size() - 3, 3, "\xe3\x80\x82") == 0) {
            key.erase(key.size() - 3);
        } else {
            break;
        }
    }
    return key;
}

// The product tag OPGEN_PRODUCT names (default 910b); nullptr when it names no product.
const char* ProductTag()
{
    const char* wanted = std::getenv("OPGEN_PRODUCT");
    std::string key = ProductKey(wanted != nullptr && *wanted != '\0' ? wanted : "910b");
    for (const opgen::ProductSpelling& spelling : opgen::kProductSpellings) {
        if (key == spelling.spelling) {
            return spelling.tag;
        }
    }
    return nullptr;
}

const opgen::ProductEntry* Product()
{
    const char* tag = ProductTag();
    for (const opgen::ProductEntry& product : opgen::kProductCatalog) {
        if (tag != nullptr && std::strcmp(product.tag, tag) == 0) {
            return &product;
        }
    }
    return nullptr;
}

// True when [address, address + bytes) lies in one live device allocation (lock held).
bool InDevice(const State& state, const void* address, uint64_t bytes)
{
    uintptr_t start = reinterpret_cast<uintptr_t>(address);
    auto it = state.device.upper_bound(start);
    if (it == state.device.begin()) {
        return false;
    }
    --it;
    return start >= it->first && start - it->first <= it->second && bytes <= it->second - (start - it->first);
}

bool TouchesDevice(const State& state, const void* address, uint64_t bytes)
{
    uintptr_t start = reinterpret_cast<uintptr_t>(address);
    uintptr_t end = start + (bytes == 0 ? 1 : bytes);
    auto it = state.device.lower_bound(end);
    if (it == state.device.begin()) {
        return false;
    }
    --it;
    return it->first + it->second > start;
}

void ReleaseExecutor(aclOpExecutor* executor)
{
    delete executor;
}

Stream* ResolveStream(State& state, aclrtStream stream)
{
    if (stream != nullptr) {
        Stream* s = static_cast<Stream*>(stream);
        return state.streams.count(s) != 0 ? s : nullptr;
    }
    if (t_device < 0) {
        return nullptr;
    }
    Stream*& fallback = state.defaults[t_device];
    if (fallback == nullptr) {
        fallback = new Stream{t_device, {}};
    }
    return fallback;
}

typedef int (*BridgeFn)(const char*, void (*)(const char*));

BridgeFn LoadBridge(std::string* problem)
{
    static std::mutex mutex;
    static BridgeFn bridge = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (bridge != nullptr) {
        return bridge;
    }
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&opgen_hostrt_set_compute), &info) == 0 || info.dli_fname == nullptr) {
        *problem = "cannot locate libascendcl.so";
        return nullptr;
    }
    std::string path = info.dli_fname;
    path = path.substr(0, path.rfind('/') + 1) + "libopgen_python.so";
    // RTLD_GLOBAL: Python extension modules (NumPy) resolve the interpreter's symbols globally.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
        const char* why = dlerror();
        *problem = "cannot load " + path + ": " + (why != nullptr ? why : "unknown error");
        return nullptr;
    }
    bridge = reinterpret_cast<BridgeFn>(dlsym(handle, "opgen_python_compute"));
    if (bridge == nullptr) {
        *problem = path + " has no opgen_python_compute";
    }
    return bridge;
}

// Runs one launched executor: its memory must still be live device memory, then it computes.
aclError RunTask(aclOpExecutor* executor)
{
    State& state = Global();
    {
        std::lock_guard<std::mutex> lock(state.mutex);
        for (const aclOpExecutor::Region& region : executor->regions) {
            if (region.bytes > 0 && !InDevice(state, region.address, region.bytes)) {
                return Fail(ACLNN_ERR_RUNTIME_ERROR, "opgen host runtime: the memory of " + region.name + " (" +
                                                         std::to_string(region.bytes) +
                                                         " bytes) is not live device memory (aclrtMalloc)");
            }
        }
    }
    OpgenComputeFn compute = nullptr;
    {
        std::lock_guard<std::mutex> lock(state.mutex);
        compute = state.compute;
    }
    if (compute != nullptr) {
        return compute(executor->request.c_str());
    }
    std::string problem;
    BridgeFn bridge = LoadBridge(&problem);
    if (bridge == nullptr) {
        return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "opgen host runtime: no compute backend: " + problem);
    }
    return bridge(executor->request.c_str(), &opgen_hostrt_set_error);
}

aclError Synchronize(Stream* stream)
{
    State& state = Global();
    std::vector<aclOpExecutor*> tasks;
    {
        std::lock_guard<std::mutex> lock(state.mutex);
        tasks.swap(stream->tasks);
    }
    aclError first = ACL_SUCCESS;
    for (aclOpExecutor* task : tasks) {
        if (first == ACL_SUCCESS) {
            std::string keep = t_error;
            bool had = t_hasError;
            aclError status = RunTask(task);
            if (status != ACL_SUCCESS) {
                first = status;
            } else {
                t_error = keep;
                t_hasError = had;
            }
        }
        ReleaseExecutor(task);
    }
    return first;
}

void ReportLeaks()
{
    const char* check = std::getenv("OPGEN_HOSTRT_CHECK_LEAKS");
    State& state = Global();
    std::string report;
    auto add = [&report](long count, const std::string& what) {
        if (count > 0) {
            report += (report.empty() ? "" : ", ") + std::to_string(count) + " " + what;
        }
    };
    {
        std::lock_guard<std::mutex> lock(state.mutex);
        for (aclOpExecutor* executor : state.executors) {
            ReleaseExecutor(executor);  // phase 1 without phase 2: CANN has no call to release them
        }
        state.executors.clear();
        for (const auto& kind : state.live) {
            add(kind.second, kind.first);
        }
        add(static_cast<long>(state.device.size()), "device allocation(s) not freed (aclrtFree)");
        add(static_cast<long>(state.streams.size()), "stream(s) not destroyed (aclrtDestroyStream)");
        add(static_cast<long>(state.contexts.size()), "context(s) not destroyed (aclrtDestroyContext)");
        for (const auto& refs : state.deviceRefs) {
            add(refs.second, "aclrtSetDevice(" + std::to_string(refs.first) + ") without aclrtResetDevice");
        }
        if (state.initialized) {
            add(1, "aclInit without aclFinalize");
        }
    }
    if (check == nullptr || std::strcmp(check, "1") != 0 || report.empty()) {
        return;
    }
    std::fprintf(stderr, "opgen host runtime: not released at exit: %s\n", report.c_str());
    std::fflush(stderr);
    _exit(99);
}

__attribute__((constructor)) void RegisterLeakReport()
{
    std::atexit(ReportLeaks);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Host-runtime interface (opgen/hostrt.h)

extern "C" {

OPGEN_EXPORT int opgen_hostrt_inject(const char* api)
{
    long n = ++g_calls;
    const char* log = std::getenv("OPGEN_CALL_LOG");
    if (log != nullptr && *log != '\0') {
        if (FILE* file = std::fopen(log, "a")) {
            std::fprintf(file, "%ld %s\n", n, api);
            std::fclose(file);
        }
    }
    if (n != EnvNumber("OPGEN_FAIL_CALL", 0)) {
        return 0;
    }
    SetError(std::string("opgen host runtime: injected failure of ") + api + " (call " + std::to_string(n) +
             " of this process, OPGEN_FAIL_CALL)");
    return 1;
}

OPGEN_EXPORT void opgen_hostrt_set_error(const char* message)
{
    if (message == nullptr) {
        t_error.clear();
        t_hasError = false;
    } else {
        SetError(message);
    }
}

OPGEN_EXPORT const char* opgen_hostrt_product(void)
{
    const char* tag = ProductTag();
    return tag != nullptr ? tag : "";
}

OPGEN_EXPORT void opgen_hostrt_count(const char* kind, int delta)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    long& count = state.live[kind];
    count += delta;
    if (count == 0) {
        state.live.erase(kind);
    }
}

OPGEN_EXPORT long opgen_hostrt_live(const char* kind)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (kind == nullptr) {
        long total = 0;
        for (const auto& entry : state.live) {
            total += entry.second;
        }
        return total;
    }
    if (std::strcmp(kind, "device") == 0) {
        return static_cast<long>(state.device.size());
    }
    if (std::strcmp(kind, "executor") == 0) {
        return static_cast<long>(state.executors.size());
    }
    auto it = state.live.find(kind);
    return it == state.live.end() ? 0 : it->second;
}

OPGEN_EXPORT aclOpExecutor* opgen_hostrt_new_executor(const char* request, const OpgenRegion* regions, size_t count)
{
    aclOpExecutor* executor = new aclOpExecutor;
    executor->request = request;
    for (size_t i = 0; i < count; ++i) {
        executor->regions.push_back({regions[i].name, regions[i].address, regions[i].bytes});
    }
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.executors.insert(executor);
    return executor;
}

OPGEN_EXPORT uint64_t opgen_hostrt_workspace_size(void)
{
    return 512;
}

OPGEN_EXPORT aclnnStatus opgen_hostrt_launch(const char* api, void* workspace, uint64_t workspaceSize,
                                             aclOpExecutor* executor, aclrtStream stream)
{
    State& state = Global();
    std::unique_lock<std::mutex> lock(state.mutex);
    bool known = executor != nullptr && state.executors.count(executor) != 0;
    if (known) {
        state.executors.erase(executor);  // consumed by this call, whatever happens
    }
    lock.unlock();
    if (opgen_hostrt_inject(api) != 0) {
        if (known) {
            ReleaseExecutor(executor);
        }
        return ACLNN_ERR_RUNTIME_ERROR;
    }
    std::string where = std::string(api) + ": ";
    if (!known) {
        return Fail(executor == nullptr ? ACLNN_ERR_PARAM_NULLPTR : ACLNN_ERR_PARAM_INVALID,
                    where + "executor is not an executor returned by the first phase (each one runs once)");
    }
    lock.lock();
    const char* problem = nullptr;
    if (workspaceSize < opgen_hostrt_workspace_size()) {
        problem = "workspaceSize is smaller than the size the first phase returned";
    } else if (!InDevice(state, workspace, workspaceSize)) {
        problem = "workspace is not device memory of workspaceSize bytes";
    }
    Stream* target = problem == nullptr ? ResolveStream(state, stream) : nullptr;
    if (problem == nullptr && target == nullptr) {
        problem = stream == nullptr ? "no current device for the default stream (aclrtSetDevice)"
                                    : "stream is not a live stream (aclrtCreateStream)";
    }
    if (problem != nullptr) {
        lock.unlock();
        ReleaseExecutor(executor);
        return Fail(ACLNN_ERR_PARAM_INVALID, where + problem);
    }
    target->tasks.push_back(executor);
    return ACLNN_SUCCESS;
}

OPGEN_EXPORT void opgen_hostrt_set_compute(OpgenComputeFn compute)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.compute = compute;
}

// ---------------------------------------------------------------------------------------------------
// ACL

ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath)
{
    (void)configPath;
    if (opgen_hostrt_inject("aclInit") != 0) {
        return ACL_ERROR_FAILURE;
    }
    if (ProductTag() == nullptr) {
        const char* wanted = std::getenv("OPGEN_PRODUCT");
        return Fail(ACL_ERROR_INVALID_PARAM, std::string("opgen host runtime: OPGEN_PRODUCT=") +
                                                 (wanted != nullptr ? wanted : "") + " names no catalogue product");
    }
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.initialized) {
        return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: ACL is already initialised");
    }
    state.initialized = true;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalize()
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (!state.initialized) {
        return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: ACL is not initialised");
    }
    state.initialized = false;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg()
{
    return t_hasError ? t_error.c_str() : nullptr;
}

ACL_FUNC_VISIBILITY const char* aclrtGetSocName()
{
    if (opgen_hostrt_inject("aclrtGetSocName") != 0) {
        return nullptr;
    }
    const opgen::ProductEntry* product = Product();
    return product != nullptr ? product->soc : nullptr;
}

ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    if (static_cast<int>(opt) < 0 || static_cast<int>(opt) > 2) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: unknown option");
    }
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.sysParams[opt] = value;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value)
{
    if (static_cast<int>(opt) < 0 || static_cast<int>(opt) > 2 || value == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: unknown option or null value");
    }
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    *value = state.sysParams[opt];
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count)
{
    if (count == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
    }
    *count = static_cast<uint32_t>(DeviceCount());
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId)
{
    if (opgen_hostrt_inject("aclrtSetDevice") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    if (deviceId < 0 || deviceId >= DeviceCount()) {
        return Fail(ACL_ERROR_INVALID_DEVICE, "aclrtSetDevice: no device " + std::to_string(deviceId) + " (" +
                                                  std::to_string(DeviceCount()) + " device(s), OPGEN_DEVICE_COUNT)");
    }
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    ++state.deviceRefs[deviceId];
    t_device = deviceId;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    auto it = state.deviceRefs.find(deviceId);
    if (it == state.deviceRefs.end()) {
        return Fail(ACL_ERROR_INVALID_DEVICE, "aclrtResetDevice: device " + std::to_string(deviceId) + " is not set");
    }
    if (--it->second == 0) {
        state.deviceRefs.erase(it);
        auto fallback = state.defaults.find(deviceId);
        if (fallback != state.defaults.end()) {
            for (aclOpExecutor* task : fallback->second->tasks) {
                ReleaseExecutor(task);
            }
            delete fallback->second;
            state.defaults.erase(fallback);
        }
        if (t_device == deviceId) {
            t_device = -1;
        }
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId)
{
    if (deviceId == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
    }
    if (t_device < 0) {
        return Fail(ACL_ERROR_RT_FAILURE, "aclrtGetDevice: no current device (aclrtSetDevice)");
    }
    *deviceId = t_device;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId)
{
    if (opgen_hostrt_inject("aclrtCreateContext") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    if (context == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
    }
    if (deviceId < 0 || deviceId >= DeviceCount()) {
        return Fail(ACL_ERROR_INVALID_DEVICE, "aclrtCreateContext: no device " + std::to_string(deviceId));
    }
    Context* created = new Context{deviceId};
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.contexts.insert(created);
    t_context = created;
    t_device = deviceId;
    *context = created;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    Context* c = static_cast<Context*>(context);
    if (state.contexts.erase(c) == 0) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: not a live context");
    }
    if (t_context == c) {
        t_context = nullptr;
    }
    delete c;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    Context* c = static_cast<Context*>(context);
    if (state.contexts.count(c) == 0) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: not a live context");
    }
    t_context = c;
    t_device = c->device;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context)
{
    if (context == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
    }
    *context = t_context;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream)
{
    if (opgen_hostrt_inject("aclrtCreateStream") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    if (stream == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
    }
    if (t_device < 0) {
        return Fail(ACL_ERROR_RT_FAILURE, "aclrtCreateStream: no current device (aclrtSetDevice)");
    }
    Stream* created = new Stream{t_device, {}};
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.streams.insert(created);
    *stream = created;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    Stream* s = static_cast<Stream*>(stream);
    if (stream == nullptr || state.streams.erase(s) == 0) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: not a live stream");
    }
    for (aclOpExecutor* task : s->tasks) {  // work never synchronised is discarded
        ReleaseExecutor(task);
    }
    delete s;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream)
{
    if (opgen_hostrt_inject("aclrtSynchronizeStream") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    State& state = Global();
    Stream* target = nullptr;
    {
        std::lock_guard<std::mutex> lock(state.mutex);
        target = ResolveStream(state, stream);
    }
    if (target == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream: not a live stream");
    }
    return Synchronize(target);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice()
{
    if (opgen_hostrt_inject("aclrtSynchronizeDevice") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    State& state = Global();
    std::vector<Stream*> streams;
    {
        std::lock_guard<std::mutex> lock(state.mutex);
        for (Stream* s : state.streams) {
            if (s->device == t_device) {
                streams.push_back(s);
            }
        }
        auto fallback = state.defaults.find(t_device);
        if (fallback != state.defaults.end()) {
            streams.push_back(fallback->second);
        }
    }
    aclError first = ACL_SUCCESS;
    for (Stream* s : streams) {
        aclError status = Synchronize(s);
        first = first == ACL_SUCCESS ? status : first;
    }
    return first;
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    if (opgen_hostrt_inject("aclrtMalloc") != 0) {
        return ACL_ERROR_BAD_ALLOC;
    }
    if (devPtr == nullptr || size == 0) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is null or size is 0");
    }
    if (static_cast<int>(policy) < 0 || static_cast<int>(policy) > 2) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: unknown policy");
    }
    if (t_device < 0) {
        return Fail(ACL_ERROR_RT_FAILURE, "aclrtMalloc: no current device (aclrtSetDevice)");
    }
    void* memory = nullptr;
    if (posix_memalign(&memory, 64, size) != 0) {
        return Fail(ACL_ERROR_BAD_ALLOC, "aclrtMalloc: out of memory for " + std::to_string(size) + " bytes");
    }
    std::memset(memory, 0xA5, size);  // device memory starts with garbage, not zeros
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.device[reinterpret_cast<uintptr_t>(memory)] = size;
    *devPtr = memory;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.device.erase(reinterpret_cast<uintptr_t>(devPtr)) == 0) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: not the start of live device memory");
    }
    std::free(devPtr);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind)
{
    if (opgen_hostrt_inject("aclrtMemcpy") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    if (count > destMax) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count is larger than destMax");
    }
    if (count == 0) {
        return ACL_SUCCESS;
    }
    if (dst == nullptr || src == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: dst or src is null");
    }
    State& state = Global();
    std::unique_lock<std::mutex> lock(state.mutex);
    bool dstDevice = InDevice(state, dst, count);
    bool srcDevice = InDevice(state, src, count);
    bool dstHost = !TouchesDevice(state, dst, count);
    bool srcHost = !TouchesDevice(state, src, count);
    lock.unlock();
    bool ok = false;
    switch (kind) {
        case ACL_MEMCPY_HOST_TO_HOST:
            ok = dstHost && srcHost;
            break;
        case ACL_MEMCPY_HOST_TO_DEVICE:
            ok = dstDevice && srcHost;
            break;
        case ACL_MEMCPY_DEVICE_TO_HOST:
            ok = dstHost && srcDevice;
            break;
        case ACL_MEMCPY_DEVICE_TO_DEVICE:
            ok = dstDevice && srcDevice;
            break;
        case ACL_MEMCPY_DEFAULT:
            ok = (dstDevice || dstHost) && (srcDevice || srcHost);
            break;
        default:
            return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: unknown kind");
    }
    if (!ok) {
        return Fail(ACL_ERROR_INVALID_PARAM,
                    "aclrtMemcpy: the pointers do not match the copy kind (device memory must lie inside one "
                    "aclrtMalloc block of at least count bytes; host memory must not overlap device memory)");
    }
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count)
{
    if (opgen_hostrt_inject("aclrtMemset") != 0) {
        return ACL_ERROR_RT_FAILURE;
    }
    if (count > maxCount) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count is larger than maxCount");
    }
    State& state = Global();
    std::unique_lock<std::mutex> lock(state.mutex);
    if (count > 0 && !InDevice(state, devPtr, count)) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: devPtr is not device memory of count bytes");
    }
    lock.unlock();
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor)
{
    State& state = Global();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.executors.erase(executor) == 0) {
        return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: not an executor waiting for its second phase");
    }
    ReleaseExecutor(executor);
    return ACLNN_SUCCESS;
}

}  // extern "C"
