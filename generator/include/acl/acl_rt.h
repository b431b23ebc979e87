/*
 * CANN's <acl/acl_rt.h> as the opgen host runtime implements it (generator/hostrt).
 *
 * It declares the subset of CANN's public host API that aclnn-opgen's samples and its ctypes backend use,
 * with CANN's names, enum values and signatures. The host runtime (libascendcl.so, libnnopbase.so,
 * libopapi.so built by generator/hostrt) defines every function declared here, on CPU memory, so samples
 * compile, link and run without an Ascend device. With ASCEND_TOOLKIT_HOME set, samples are built against
 * the real headers and libraries in $ASCEND_TOOLKIT_HOME instead, unchanged.
 *
 * Names, enum values and signatures are copied from the real acl/acl_rt.h (CANN ACL 1.17.0 as shipped in
 * the torch_npu 2.14.0 wheel) and agree with cann-facts.md section 4.2. As in the real header,
 * aclInit, aclFinalize and aclGetRecentErrMsg are declared here (older CANN releases had aclInit/aclFinalize
 * in acl/acl.h and aclGetRecentErrMsg in acl/acl_base.h; code including "acl/acl.h" is unaffected).
 * The real enums list their members without initialisers; the values are spelled out here (same numbers).
 * Members beyond the ones samples use are omitted (the real aclrtMemMallocPolicy also has *_P2P,
 * HUGE1G and ACL_MEM_TYPE_* members; the real aclrtMemcpyKind has three more kinds after DEFAULT).
 * The real acl/acl_rt_api.h C++ convenience overloads (e.g. templated aclrtMalloc(T **, ...)) are not
 * provided: samples pass void ** like the docs do.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_H_
#define INC_EXTERNAL_ACL_ACL_RT_H_

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
} aclrtMemMallocPolicy;

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

ACL_FUNC_VISIBILITY aclError aclFinalize();

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg();

ACL_FUNC_VISIBILITY const char *aclrtGetSocName();

ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);

ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice();

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr,
                                         size_t size,
                                         aclrtMemMallocPolicy policy);

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst,
                                         size_t destMax,
                                         const void *src,
                                         size_t count,
                                         aclrtMemcpyKind kind);

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // INC_EXTERNAL_ACL_ACL_RT_H_
