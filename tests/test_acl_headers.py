"""Tests for the stand-in ACL/aclnn host headers and the sample compile-checker (generator/csamples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator import csamples
from generator.csamples import (
    INCLUDE_DIR,
    CompileResult,
    compile_sample,
    compile_samples,
    find_compiler,
)

HEADERS = ("acl/acl.h", "acl/acl_base.h", "acl/acl_rt.h", "aclnn/acl_meta.h", "aclnn/aclnn_base.h")

# Values from cann-facts.md sections 2, 3.1, 3.2 and 4.2; the ACL_ERROR_* codes and the two extra
# aclSysParamOpt members come from the real acl/acl_base_rt.h (CANN ACL 1.17.0, torch_npu 2.14.0 wheel).
EXPECTED_DTYPES = {
    "ACL_DT_UNDEFINED": -1,
    "ACL_FLOAT": 0,
    "ACL_FLOAT16": 1,
    "ACL_INT8": 2,
    "ACL_INT32": 3,
    "ACL_UINT8": 4,
    "ACL_INT16": 6,
    "ACL_UINT16": 7,
    "ACL_UINT32": 8,
    "ACL_INT64": 9,
    "ACL_UINT64": 10,
    "ACL_DOUBLE": 11,
    "ACL_BOOL": 12,
    "ACL_STRING": 13,
    "ACL_COMPLEX64": 16,
    "ACL_COMPLEX128": 17,
    "ACL_BF16": 27,
    "ACL_INT4": 29,
    "ACL_UINT1": 30,
    "ACL_COMPLEX32": 33,
    "ACL_HIFLOAT8": 34,
    "ACL_FLOAT8_E5M2": 35,
    "ACL_FLOAT8_E4M3FN": 36,
    "ACL_FLOAT8_E8M0": 37,
    "ACL_FLOAT6_E3M2": 38,
    "ACL_FLOAT6_E2M3": 39,
    "ACL_FLOAT4_E2M1": 40,
    "ACL_FLOAT4_E1M2": 41,
}
EXPECTED_FORMATS = {
    "ACL_FORMAT_UNDEFINED": -1,
    "ACL_FORMAT_NCHW": 0,
    "ACL_FORMAT_NHWC": 1,
    "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NC1HWC0": 3,
    "ACL_FORMAT_FRACTAL_Z": 4,
    "ACL_FORMAT_NC1HWC0_C04": 12,
    "ACL_FORMAT_HWCN": 16,
    "ACL_FORMAT_NDHWC": 27,
    "ACL_FORMAT_FRACTAL_NZ": 29,
    "ACL_FORMAT_NCDHW": 30,
    "ACL_FORMAT_NDC1HWC0": 32,
    "ACL_FRACTAL_Z_3D": 33,
    "ACL_FORMAT_NC": 35,
    "ACL_FORMAT_NCL": 47,
    "ACL_FORMAT_FRACTAL_NZ_C0_16": 50,
    "ACL_FORMAT_FRACTAL_NZ_C0_32": 51,
    "ACL_FORMAT_FRACTAL_NZ_C0_2": 52,
    "ACL_FORMAT_FRACTAL_NZ_C0_4": 53,
    "ACL_FORMAT_FRACTAL_NZ_C0_8": 54,
}
EXPECTED_RUNTIME = {
    "ACL_MEMCPY_HOST_TO_HOST": 0,
    "ACL_MEMCPY_HOST_TO_DEVICE": 1,
    "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
    "ACL_MEMCPY_DEFAULT": 4,
    "ACL_MEM_MALLOC_HUGE_FIRST": 0,
    "ACL_MEM_MALLOC_HUGE_ONLY": 1,
    "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
    "ACL_OPT_DETERMINISTIC": 0,
    "ACL_OPT_ENABLE_DEBUG_KERNEL": 1,
    "ACL_OPT_STRONG_CONSISTENCY": 2,
}
EXPECTED_ACL_ERRORS = {
    "ACL_ERROR_NONE": 0,
    "ACL_SUCCESS": 0,
    "ACL_ERROR_INVALID_PARAM": 100000,
    "ACL_ERROR_UNINITIALIZE": 100001,
    "ACL_ERROR_REPEAT_INITIALIZE": 100002,
    "ACL_ERROR_BAD_ALLOC": 200000,
    "ACL_ERROR_API_NOT_SUPPORT": 200001,
    "ACL_ERROR_INVALID_DEVICE": 200002,
    "ACL_ERROR_INTERNAL_ERROR": 500000,
    "ACL_ERROR_FAILURE": 500001,
    "ACL_ERROR_RT_FAILURE": 500003,
}
EXPECTED_ACLNN_STATUS = {
    "ACLNN_SUCCESS": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001,
    "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000,
    "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001,
    "ACLNN_ERR_INNER_TILING_ERROR": 561002,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101,
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102,
    "ACLNN_ERR_INNER_NULLPTR": 561103,
    "ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE": 561104,
    "ACLNN_ERR_INNER_KEY_CONFLICT": 561105,
    "ACLNN_ERR_INNER_KEY_CONFILICT": 561105,
    "ACLNN_ERR_INNER_INVALID_IMPL_MODE": 561106,
    "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND": 561107,
    "ACLNN_ERR_INNER_LOAD_JSON_FAILED": 561108,
    "ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND": 561109,
    "ACLNN_ERR_INNER_JSON_FORMAT_INVALID": 561110,
    "ACLNN_ERR_INNER_JSON_DTYPE_INVALID": 561111,
    "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND": 561112,
    "ACLNN_ERR_INNER_OP_FILE_INVALID": 561113,
    "ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND": 561114,
    "ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH": 561115,
    "ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE": 561116,
    "ACLNN_ERR_INNER_INPUT_JSON_IS_NULL": 561117,
    "ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID": 561118,
    "ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID": 561119,
}

# A fake generated operator header, shaped like the real aclnnop/*.h ones (two-phase API).
FAKE_OP_HEADER = """\
#ifndef OP_API_INC_FAKE_OP_H_
#define OP_API_INC_FAKE_OP_H_
#include "aclnn/aclnn_base.h"
#ifdef __cplusplus
extern "C" {
#endif
aclnnStatus aclnnFakeOpGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha,
                                        const aclIntArray *kernelSize, const aclBoolArray *outputMask,
                                        const aclFloatArray *scales, const aclTensorList *others,
                                        const aclScalarList *scalars, bool flag, int64_t dim,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnFakeOp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        const aclrtStream stream);
#ifdef __cplusplus
}
#endif
#endif
"""

# Exercises every declaration of the stand-in headers the way the doc samples do, and pins the exact
# signatures/typedefs with static_asserts so that a drift from the real CANN API fails to compile.
FULL_SAMPLE = r"""
#include <cstdio>
#include <iostream>
#include <memory>
#include <type_traits>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fake_op.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

// Typedefs.
static_assert(std::is_same<aclrtStream, void *>::value, "aclrtStream");
static_assert(std::is_same<aclError, int>::value, "aclError");
static_assert(std::is_same<aclFloat16, uint16_t>::value, "aclFloat16");
static_assert(std::is_same<aclnnStatus, int32_t>::value, "aclnnStatus");
// Exact signatures (cann-facts.md 4.2 and the real acl_rt.h).
static_assert(std::is_same<decltype(&aclInit), aclError (*)(const char *)>::value, "aclInit");
static_assert(std::is_same<decltype(&aclFinalize), aclError (*)()>::value, "aclFinalize");
static_assert(std::is_same<decltype(&aclGetRecentErrMsg), const char *(*)()>::value, "aclGetRecentErrMsg");
static_assert(std::is_same<decltype(&aclrtSetDevice), aclError (*)(int32_t)>::value, "aclrtSetDevice");
static_assert(std::is_same<decltype(&aclrtResetDevice), aclError (*)(int32_t)>::value, "aclrtResetDevice");
static_assert(std::is_same<decltype(&aclrtCreateStream), aclError (*)(aclrtStream *)>::value, "createStream");
static_assert(std::is_same<decltype(&aclrtDestroyStream), aclError (*)(aclrtStream)>::value, "destroyStream");
static_assert(std::is_same<decltype(&aclrtSynchronizeStream), aclError (*)(aclrtStream)>::value, "sync");
static_assert(std::is_same<decltype(&aclrtMalloc), aclError (*)(void **, size_t, aclrtMemMallocPolicy)>::value,
              "aclrtMalloc");
static_assert(std::is_same<decltype(&aclrtFree), aclError (*)(void *)>::value, "aclrtFree");
static_assert(std::is_same<decltype(&aclrtMemcpy),
                           aclError (*)(void *, size_t, const void *, size_t, aclrtMemcpyKind)>::value,
              "aclrtMemcpy");
static_assert(std::is_same<decltype(&aclrtMemset), aclError (*)(void *, size_t, int32_t, size_t)>::value,
              "aclrtMemset");
static_assert(std::is_same<decltype(&aclrtCtxSetSysParamOpt), aclError (*)(aclSysParamOpt, int64_t)>::value,
              "aclrtCtxSetSysParamOpt");
static_assert(std::is_same<decltype(&aclCreateTensor),
                           aclTensor *(*)(const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t,
                                          aclFormat, const int64_t *, uint64_t, void *)>::value,
              "aclCreateTensor");
static_assert(std::is_same<decltype(&aclCreateScalar), aclScalar *(*)(void *, aclDataType)>::value, "scalar");
static_assert(std::is_same<decltype(&aclCreateIntArray), aclIntArray *(*)(const int64_t *, uint64_t)>::value,
              "aclCreateIntArray");
static_assert(std::is_same<decltype(&aclCreateFloatArray), aclFloatArray *(*)(const float *, uint64_t)>::value,
              "aclCreateFloatArray");
static_assert(std::is_same<decltype(&aclCreateBoolArray), aclBoolArray *(*)(const bool *, uint64_t)>::value,
              "aclCreateBoolArray");
static_assert(std::is_same<decltype(&aclCreateTensorList),
                           aclTensorList *(*)(const aclTensor *const *, uint64_t)>::value,
              "aclCreateTensorList");
static_assert(std::is_same<decltype(&aclCreateScalarList),
                           aclScalarList *(*)(const aclScalar *const *, uint64_t)>::value,
              "aclCreateScalarList");
static_assert(std::is_same<decltype(&aclDestroyTensor), aclnnStatus (*)(const aclTensor *)>::value, "dT");
static_assert(std::is_same<decltype(&aclDestroyScalar), aclnnStatus (*)(const aclScalar *)>::value, "dS");
static_assert(std::is_same<decltype(&aclDestroyIntArray), aclnnStatus (*)(const aclIntArray *)>::value, "dI");
static_assert(std::is_same<decltype(&aclDestroyFloatArray), int (*)(const aclFloatArray *)>::value, "dF");
static_assert(std::is_same<decltype(&aclDestroyBoolArray), int (*)(const aclBoolArray *)>::value, "dB");
static_assert(std::is_same<decltype(&aclDestroyTensorList), int (*)(const aclTensorList *)>::value, "dTL");
static_assert(std::is_same<decltype(&aclDestroyScalarList), int (*)(const aclScalarList *)>::value, "dSL");
// Enum values (cann-facts.md 3.1, 3.2, 4.2) and status codes (section 2).
static_assert(ACL_FLOAT == 0 && ACL_FLOAT16 == 1 && ACL_INT8 == 2 && ACL_INT32 == 3 && ACL_BF16 == 27, "dt");
static_assert(ACL_DT_UNDEFINED == -1 && ACL_INT64 == 9 && ACL_BOOL == 12 && ACL_DOUBLE == 11, "dt2");
static_assert(ACL_FORMAT_NCHW == 0 && ACL_FORMAT_ND == 2 && ACL_FORMAT_NCDHW == 30 && ACL_FORMAT_NCL == 47, "f");
static_assert(ACL_FORMAT_UNDEFINED == -1 && ACL_FRACTAL_Z_3D == 33 && ACL_FORMAT_NC == 35, "f2");
static_assert(ACL_MEMCPY_HOST_TO_HOST == 0 && ACL_MEMCPY_HOST_TO_DEVICE == 1, "memcpy");
static_assert(ACL_MEMCPY_DEVICE_TO_HOST == 2 && ACL_MEMCPY_DEVICE_TO_DEVICE == 3 && ACL_MEMCPY_DEFAULT == 4, "m");
static_assert(ACL_MEM_MALLOC_HUGE_FIRST == 0 && ACL_MEM_MALLOC_HUGE_ONLY == 1, "malloc");
static_assert(ACL_MEM_MALLOC_NORMAL_ONLY == 2 && ACL_OPT_DETERMINISTIC == 0, "malloc2");
static_assert(ACL_SUCCESS == 0 && ACLNN_SUCCESS == ACL_SUCCESS && ACL_ERROR_INTERNAL_ERROR == 500000, "ok");
static_assert(ACLNN_ERR_PARAM_NULLPTR == 161001 && ACLNN_ERR_PARAM_INVALID == 161002, "param");
static_assert(ACLNN_ERR_RUNTIME_ERROR == 361001 && ACLNN_ERR_INNER_NULLPTR == 561103, "inner");

int64_t GetShapeSize(const std::vector<int64_t> &shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream *stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCtxSetSysParamOpt failed. ERROR: %d\n", ret); return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, void **deviceAddr,
                    aclDataType dataType, aclTensor **tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  aclFormat format = shape.size() == 4 ? aclFormat::ACL_FORMAT_NCHW
                     : shape.size() == 3 ? ACL_FORMAT_NCL
                     : shape.size() == 5 ? ACL_FORMAT_NCDHW
                                         : aclFormat::ACL_FORMAT_ND;
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, format, shape.data(),
                            shape.size(), *deviceAddr);
  return 0;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> selfShape = {2, 3, 4, 5};
  std::vector<float> selfHostData(GetShapeSize(selfShape), 1.0f);
  std::vector<aclFloat16> halfHostData(GetShapeSize(selfShape), 0);
  void *selfDeviceAddr = nullptr;
  void *outDeviceAddr = nullptr;
  void *halfDeviceAddr = nullptr;
  aclTensor *self = nullptr;
  aclTensor *out = nullptr;
  aclTensor *half = nullptr;
  ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(selfHostData, selfShape, &outDeviceAddr, ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(halfHostData, selfShape, &halfDeviceAddr, ACL_FLOAT16, &half);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor *)> selfPtr(self, aclDestroyTensor);
  std::unique_ptr<void, aclError (*)(void *)> selfDeviceAddrPtr(selfDeviceAddr, aclrtFree);

  float alphaValue = 1.0f;
  aclScalar *alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
  CHECK_RET(alpha != nullptr, return ACL_ERROR_INTERNAL_ERROR);
  std::vector<int64_t> kernelSizeData = {3, 3};
  aclIntArray *kernelSize = aclCreateIntArray(kernelSizeData.data(), kernelSizeData.size());
  bool outputMaskData[3] = {true, false, true};
  aclBoolArray *outputMask = aclCreateBoolArray(outputMaskData, 3);
  std::vector<float> scalesData = {0.5f, 2.0f};
  aclFloatArray *scales = aclCreateFloatArray(scalesData.data(), scalesData.size());
  std::vector<const aclTensor *> tensors = {half, out};
  aclTensorList *others = aclCreateTensorList(tensors.data(), tensors.size());
  const aclScalar *scalarItems[] = {alpha};
  aclScalarList *scalars = aclCreateScalarList(scalarItems, 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  aclnnStatus status = aclnnFakeOpGetWorkspaceSize(self, alpha, kernelSize, outputMask, scales, others, scalars,
                                                   false, -1, out, &workspaceSize, &executor);
  if (status == ACLNN_ERR_PARAM_NULLPTR || status == ACLNN_ERR_PARAM_INVALID || status == ACLNN_ERR_INNER_NULLPTR) {
    LOG_PRINT("parameter error %d: %s\n", status, aclGetRecentErrMsg());
  }
  CHECK_RET(status == ACL_SUCCESS, LOG_PRINT("GetWorkspaceSize failed. ERROR: %d\n", status); return status);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_NORMAL_ONLY);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemset(workspaceAddr, workspaceSize, 0, workspaceSize);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
  }
  status = aclnnFakeOp(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, LOG_PRINT("aclnnFakeOp failed. ERROR: %d\n", status); return status);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  auto size = GetShapeSize(selfShape);
  std::vector<float> resultData(size, 0);
  ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), outDeviceAddr,
                    size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(outDeviceAddr, size * sizeof(float), selfDeviceAddr, size * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(resultData.data(), size * sizeof(float), selfHostData.data(), size * sizeof(float),
                    ACL_MEMCPY_HOST_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(outDeviceAddr, size * sizeof(float), selfHostData.data(), size * sizeof(float),
                    ACL_MEMCPY_DEFAULT);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
  }

  aclDestroyTensor(out);
  aclDestroyTensor(half);
  aclDestroyScalar(alpha);
  aclDestroyIntArray(kernelSize);
  aclDestroyBoolArray(outputMask);
  aclDestroyFloatArray(scales);
  aclDestroyTensorList(others);
  aclDestroyScalarList(scalars);
  aclrtFree(outDeviceAddr);
  aclrtFree(halfDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  (void)ACL_MEM_MALLOC_HUGE_ONLY;
  std::cout << "done" << std::endl;
  return 0;
}
"""

TYPE_ERROR_SAMPLE = r"""
#include <vector>
#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

int CreateAclTensor(const std::vector<int64_t> &shape, void *deviceAddr, aclTensor **tensor) {
  std::vector<int64_t> strides = {2, 1};
  *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                            shape.data(), shape.size(), deviceAddr);
  return 0;
}

int main() {
  std::vector<int64_t> shape = {2, 2};
  float hostData[4] = {0, 1, 2, 3};
  float *notATensor = hostData;
  // Wrong: a float* where aclTensor** is expected.
  return CreateAclTensor(shape, nullptr, notATensor);
}
"""

ASSIGN_ERROR_SAMPLE = r"""
#include <vector>
#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

int main() {
  std::vector<int64_t> shape = {2, 2};
  std::vector<int64_t> strides = {2, 1};
  float *deviceAddr = nullptr;
  // Wrong: aclCreateTensor returns aclTensor*, not float*.
  deviceAddr = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                               shape.data(), shape.size(), nullptr);
  return deviceAddr == nullptr ? 0 : 1;
}
"""

UNUSED_VARIABLE_SAMPLE = r"""
#include "acl/acl.h"

int main() {
  aclError ret = aclInit(nullptr);
  int unused = 0;
  return ret == ACL_SUCCESS ? 0 : 1;
}
"""

WRONG_ENUM_SAMPLE = r"""
#include "acl/acl.h"

int main() {
  void *dev = nullptr;
  // Wrong: a format where an aclrtMemMallocPolicy is expected.
  return aclrtMalloc(&dev, 16, ACL_FORMAT_ND) == ACL_SUCCESS ? 0 : 1;
}
"""


@pytest.fixture
def compiler(monkeypatch: pytest.MonkeyPatch) -> str:
    """The C++ compiler to use; the stand-in headers are selected by unsetting ASCEND_TOOLKIT_HOME."""
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    cxx = find_compiler()
    if cxx is None:
        pytest.skip("no C++ compiler found")
    return cxx


@pytest.fixture
def generated_root(tmp_path: Path) -> Path:
    """A generated tree holding one fake aclnnop header."""
    root = tmp_path / "generated"
    (root / "aclnnop").mkdir(parents=True)
    (root / "aclnnop" / "aclnn_fake_op.h").write_text(FAKE_OP_HEADER, encoding="utf-8")
    return root


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _parse_values(text: str) -> dict[str, int]:
    """Return ``NAME -> value`` for enum members (``NAME = v``), constants and object-like macros."""
    values: dict[str, int] = {}
    pattern = re.compile(
        r"^\s*(?:#define\s+(?P<macro>ACLN?N?_\w+)\s+|(?:static\s+const\s+int\s+)?(?P<name>ACLN?N?_\w+)\s*=\s*)"
        r"(?P<value>-?(?:0[xX][0-9a-fA-F]+|\d+))\b",
        re.MULTILINE,
    )
    for m in pattern.finditer(text):
        name = m.group("macro") or m.group("name")
        assert name not in values, f"{name} defined twice"
        values[name] = int(m.group("value"), 0)
    return values


def test_headers_exist_with_guards_and_extern_c() -> None:
    for rel in HEADERS:
        text = (INCLUDE_DIR / rel).read_text(encoding="utf-8")
        assert "minimal stand-in" in text.lower(), rel
        assert "ASCEND_TOOLKIT_HOME" in text, rel
        guard = re.search(r"#ifndef (\w+)\s*\n#define \1\b", text)
        assert guard, f"{rel}: no include guard"
        assert '#ifdef __cplusplus\nextern "C" {' in text, rel


def test_full_sample_compiles(tmp_path: Path, compiler: str, generated_root: Path) -> None:
    sample = _write(tmp_path, "full_sample.cpp", FULL_SAMPLE)
    result = compile_sample(sample, generated_root, compiler=compiler)
    assert isinstance(result, CompileResult)
    assert result.path == sample
    assert result.ok, result.output


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("type_error.cpp", TYPE_ERROR_SAMPLE, "aclTensor**"),
        ("assign_error.cpp", ASSIGN_ERROR_SAMPLE, "aclTensor*"),
        ("unused_variable.cpp", UNUSED_VARIABLE_SAMPLE, "unused"),
        ("wrong_enum.cpp", WRONG_ENUM_SAMPLE, "aclrtMalloc"),
    ],
)
def test_bad_sample_fails(
    tmp_path: Path, compiler: str, generated_root: Path, name: str, text: str, needle: str
) -> None:
    sample = _write(tmp_path, name, text)
    result = compile_sample(sample, generated_root, compiler=compiler)
    assert result.ok is False
    assert needle in result.output.replace(" ", ""), result.output


def test_each_header_compiles_alone(tmp_path: Path, compiler: str, generated_root: Path) -> None:
    paths = [
        _write(tmp_path, f"only_{i}.cpp", f'#include "{rel}"\nint main() {{ return 0; }}\n')
        for i, rel in enumerate(HEADERS)
    ]
    results = compile_samples(paths, generated_root, jobs=2, compiler=compiler)
    assert [r.path for r in results] == paths
    for r in results:
        assert r.ok, f"{r.path}: {r.output}"


def test_compile_samples_keeps_order_and_reports_each(tmp_path: Path, compiler: str, generated_root: Path) -> None:
    good = _write(tmp_path, "good.cpp", FULL_SAMPLE)
    bad = _write(tmp_path, "bad.cpp", UNUSED_VARIABLE_SAMPLE)
    results = compile_samples([bad, good, bad], generated_root, jobs=3, compiler=compiler)
    assert [(r.path, r.ok) for r in results] == [(bad, False), (good, True), (bad, False)]
    assert compile_samples([], generated_root) == []


def test_enum_and_status_values_match_facts() -> None:
    acl = _parse_values(
        (INCLUDE_DIR / "acl/acl_base.h").read_text(encoding="utf-8")
        + (INCLUDE_DIR / "acl/acl_rt.h").read_text(encoding="utf-8")
    )
    aclnn = _parse_values((INCLUDE_DIR / "aclnn/aclnn_base.h").read_text(encoding="utf-8"))
    assert acl == {**EXPECTED_DTYPES, **EXPECTED_FORMATS, **EXPECTED_RUNTIME, **EXPECTED_ACL_ERRORS}
    assert aclnn == EXPECTED_ACLNN_STATUS
    # The values singled out by the brief.
    spot = {
        "ACL_FLOAT": 0,
        "ACL_FLOAT16": 1,
        "ACL_INT8": 2,
        "ACL_INT32": 3,
        "ACL_BF16": 27,
        "ACL_FORMAT_ND": 2,
        "ACL_FORMAT_NCHW": 0,
        "ACL_FORMAT_NCL": 47,
        "ACL_FORMAT_NCDHW": 30,
        "ACL_MEMCPY_HOST_TO_DEVICE": 1,
        "ACL_MEMCPY_DEVICE_TO_HOST": 2,
        "ACL_MEM_MALLOC_HUGE_FIRST": 0,
    }
    assert {k: acl[k] for k in spot} == spot


def test_status_codes_match_catalog() -> None:
    catalog = Path(__file__).resolve().parents[1] / "specs" / "catalog" / "status_codes.yaml"
    if not catalog.is_file():
        pytest.skip("no status-code catalog")
    listed = dict(re.findall(r"name:\s*(ACLNN_\w+),\s*value:\s*(\d+)", catalog.read_text(encoding="utf-8")))
    header = _parse_values((INCLUDE_DIR / "aclnn/aclnn_base.h").read_text(encoding="utf-8"))
    assert listed, "catalog format changed"
    for name, value in listed.items():
        assert header.get(name) == int(value), name


def test_include_dirs_prefers_real_toolkit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    assert csamples.include_dirs(gen) == [INCLUDE_DIR, gen]
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(tmp_path / "toolkit"))
    assert csamples.include_dirs(gen) == [tmp_path / "toolkit" / "include", gen]


def test_find_compiler_honours_cxx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "my-cxx --flag")
    assert find_compiler() == "my-cxx --flag"


def test_missing_compiler_reports_failure(tmp_path: Path, generated_root: Path) -> None:
    sample = _write(tmp_path, "x.cpp", "int main() { return 0; }\n")
    result = compile_sample(sample, generated_root, compiler=str(tmp_path / "no-such-compiler"))
    assert result.ok is False
    assert "could not run" in result.output
