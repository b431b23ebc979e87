/*
 * Minimal stand-in for CANN's <acl/acl.h>.
 *
 * It declares only the subset of CANN's public host API that aclnn-opgen's generated C++ samples use,
 * so that they can be compile-checked (g++/clang++ -fsyntax-only) on machines without a CANN install.
 * It contains declarations only, no definitions: nothing here can be linked or run.
 * When ASCEND_TOOLKIT_HOME is set, generator/csamples.py uses the real headers from
 * $ASCEND_TOOLKIT_HOME/include instead, and the same sample compiles unchanged against them.
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
