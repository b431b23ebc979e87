/*
 * CANN's <acl/acl.h> as the opgen host runtime implements it (generator/hostrt).
 *
 * It declares the subset of CANN's public host API that aclnn-opgen's samples and its ctypes backend use,
 * with CANN's names, enum values and signatures. The host runtime (libascendcl.so, libnnopbase.so,
 * libopapi.so built by generator/hostrt) defines every function declared here, on CPU memory, so samples
 * compile, link and run without an Ascend device. With ASCEND_TOOLKIT_HOME set, samples are built against
 * the real headers and libraries in $ASCEND_TOOLKIT_HOME instead, unchanged.
 *
 * The real acl/acl.h declares nothing itself: it includes acl_rt.h (which includes acl_base.h),
 * acl_op.h and acl_mdl.h. The op/model APIs are not used by aclnn samples, so only the first two exist here.
 * aclInit/aclFinalize are declared in acl_rt.h, where current CANN declares them.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif  // INC_EXTERNAL_ACL_ACL_H_
