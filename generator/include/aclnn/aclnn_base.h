/*
 * CANN's <aclnn/aclnn_base.h> as the opgen host runtime implements it (generator/hostrt).
 *
 * It declares the subset of CANN's public host API that aclnn-opgen's samples and its ctypes backend use,
 * with CANN's names, enum values and signatures. The host runtime (libascendcl.so, libnnopbase.so,
 * libopapi.so built by generator/hostrt) defines every function declared here, on CPU memory, so samples
 * compile, link and run without an Ascend device. With ASCEND_TOOLKIT_HOME set, samples are built against
 * the real headers and libraries in $ASCEND_TOOLKIT_HOME instead, unchanged.
 *
 * Generated aclnnop/aclnn_<op>.h headers include this file: it brings in the handle types
 * (aclnn/acl_meta.h), aclrtStream (acl/acl_base.h) and the aclnnStatus type.
 * Status-code values come from docs/zh/context/aclnn_return_code.md (cann-facts.md section 2).
 * Uncertain points (no real aclnn header was available to compare with):
 *  - aclnnStatus is `typedef int32_t aclnnStatus` (as in torch_npu's OpInterface.h); which real header
 *    defines it (here or acl_meta.h) is not confirmed;
 *  - the ACLNN_* codes are object-like macros here; the real headers may declare them differently
 *    (e.g. as constants) or in another header. Values and names are as documented; samples compare against
 *    ACL_SUCCESS (= ACLNN_SUCCESS = 0) anyway.
 */
#ifndef ACLNN_ACLNN_BASE_H_
#define ACLNN_ACLNN_BASE_H_

#include <stdint.h>
#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE 561104
#define ACLNN_ERR_INNER_KEY_CONFLICT 561105
#define ACLNN_ERR_INNER_KEY_CONFILICT 561105 /* deprecated misspelled alias of ACLNN_ERR_INNER_KEY_CONFLICT */
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE 561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED 561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND 561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID 561110
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID 561111
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND 561112
#define ACLNN_ERR_INNER_OP_FILE_INVALID 561113
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND 561114
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH 561115
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE 561116
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL 561117
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID 561118
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID 561119

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_ACLNN_BASE_H_
