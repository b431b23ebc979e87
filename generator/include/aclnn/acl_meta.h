/*
 * CANN's <aclnn/acl_meta.h> as the opgen host runtime implements it (generator/hostrt).
 *
 * It declares the subset of CANN's public host API that aclnn-opgen's samples and its ctypes backend use,
 * with CANN's names, enum values and signatures. The host runtime (libascendcl.so, libnnopbase.so,
 * libopapi.so built by generator/hostrt) defines every function declared here, on CPU memory, so samples
 * compile, link and run without an Ascend device. With ASCEND_TOOLKIT_HOME set, samples are built against
 * the real headers and libraries in $ASCEND_TOOLKIT_HOME instead, unchanged.
 *
 * Contents: the opaque aclnn handle types and their create/destroy functions. Parameter and return types
 * are those of the function-pointer typedefs in torch_npu's op_plugin/utils/op_api_common_base.h
 * (cann-facts.md section 4.2). Uncertain points (no real aclnn header was available to compare with):
 *  - the include guard name and the exact split between acl_meta.h and aclnn_base.h;
 *  - the destroy functions are declared returning int as in torch_npu's typedefs. The real header may spell
 *    that return type aclnnStatus; aclnnStatus is int32_t, i.e. int on every CANN target (LP64/ILP32), so
 *    the declarations are the same type and pointers such as `aclnnStatus (*)(const aclTensor *)` (used by
 *    the conv-backward doc sample with std::unique_ptr) bind to them either way;
 *  - parameter names follow torch_npu's typedefs (snake_case); names do not affect compilation.
 */
#ifndef ACLNN_ACL_META_H_
#define ACLNN_ACL_META_H_

#include <stdint.h>
#include <stdbool.h>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *view_dims, uint64_t view_dims_num,
                                               aclDataType data_type, const int64_t *stride, int64_t offset,
                                               aclFormat format, const int64_t *storage_dims,
                                               uint64_t storage_dims_num, void *tensor_data);

ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType data_type);

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);

ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);

ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);

ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);

ACL_FUNC_VISIBILITY aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);

ACL_FUNC_VISIBILITY int aclDestroyTensor(const aclTensor *tensor);

ACL_FUNC_VISIBILITY int aclDestroyScalar(const aclScalar *scalar);

ACL_FUNC_VISIBILITY int aclDestroyIntArray(const aclIntArray *array);

ACL_FUNC_VISIBILITY int aclDestroyFloatArray(const aclFloatArray *array);

ACL_FUNC_VISIBILITY int aclDestroyBoolArray(const aclBoolArray *array);

ACL_FUNC_VISIBILITY int aclDestroyTensorList(const aclTensorList *array);

ACL_FUNC_VISIBILITY int aclDestroyScalarList(const aclScalarList *array);

/* Releases an executor that phase 1 returned and phase 2 never ran (phase 2 releases the ones it runs). */
ACL_FUNC_VISIBILITY int aclDestroyAclOpExecutor(aclOpExecutor *executor);

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_ACL_META_H_
