/* A host-only stand-in for the CANN libraries, for testing the ctypes backend without a device.
 *
 * It implements the runtime calls, the handle constructors and two operators:
 * aclnnEluBackward (computed for FLOAT tensors, 161002 for any other dtype) and
 * aclnnConvolutionBackward (whose outputs encode the arguments it received, so a test can check
 * that every C type was marshalled correctly). It counts live handles and device buffers.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int64_t dims[16]; uint64_t rank; int dtype; int format; void *data; } aclTensor;
typedef struct { int dtype; unsigned char bytes[16]; } aclScalar;
typedef struct { int64_t *values; uint64_t size; } aclIntArray;
typedef struct { bool *values; uint64_t size; } aclBoolArray;

static char last_error[256];
static int live_handles;
static int live_buffers;

int fake_live_handles(void) { return live_handles; }
int fake_live_buffers(void) { return live_buffers; }
const char *aclGetRecentErrMsg(void) { return last_error; }

int aclInit(const char *config) { (void)config; return 0; }
int aclrtSetDevice(int32_t device) { (void)device; return 0; }
int aclrtCreateStream(void **stream) { *stream = (void *)0x1; return 0; }
int aclrtSynchronizeStream(void *stream) { (void)stream; return 0; }
int aclrtMalloc(void **ptr, size_t size, int policy) {
  (void)policy;
  *ptr = malloc(size ? size : 1);
  if (*ptr) live_buffers++;
  return *ptr ? 0 : 1;
}
int aclrtFree(void *ptr) { free(ptr); live_buffers--; return 0; }
int aclrtMemcpy(void *dst, size_t dst_max, const void *src, size_t count, int kind) {
  (void)kind;
  if (count > dst_max) return 1;
  memcpy(dst, src, count);
  return 0;
}

aclTensor *aclCreateTensor(const int64_t *dims, uint64_t rank, int dtype, const int64_t *strides, int64_t offset,
                           int format, const int64_t *storage_dims, uint64_t storage_rank, void *data) {
  (void)strides; (void)offset; (void)storage_dims; (void)storage_rank;
  aclTensor *t = calloc(1, sizeof(aclTensor));
  t->rank = rank; t->dtype = dtype; t->format = format; t->data = data;
  for (uint64_t i = 0; i < rank && i < 16; i++) t->dims[i] = dims[i];
  live_handles++;
  return t;
}
aclScalar *aclCreateScalar(void *value, int dtype) {
  aclScalar *s = calloc(1, sizeof(aclScalar));
  s->dtype = dtype;
  size_t size = dtype == 0 ? 4 : dtype == 11 ? 8 : dtype == 9 ? 8 : dtype == 3 ? 4 : 2;
  memcpy(s->bytes, value, size);
  live_handles++;
  return s;
}
aclIntArray *aclCreateIntArray(const int64_t *values, uint64_t size) {
  aclIntArray *a = calloc(1, sizeof(aclIntArray));
  a->values = calloc(size ? size : 1, sizeof(int64_t));
  memcpy(a->values, values, size * sizeof(int64_t));
  a->size = size;
  live_handles++;
  return a;
}
aclBoolArray *aclCreateBoolArray(const bool *values, uint64_t size) {
  aclBoolArray *a = calloc(1, sizeof(aclBoolArray));
  a->values = calloc(size ? size : 1, sizeof(bool));
  memcpy(a->values, values, size * sizeof(bool));
  a->size = size;
  live_handles++;
  return a;
}
int aclDestroyTensor(const aclTensor *t) { free((void *)t); live_handles--; return 0; }
int aclDestroyScalar(const aclScalar *s) { free((void *)s); live_handles--; return 0; }
int aclDestroyIntArray(const aclIntArray *a) { free(a->values); free((void *)a); live_handles--; return 0; }
int aclDestroyBoolArray(const aclBoolArray *a) { free(a->values); free((void *)a); live_handles--; return 0; }

static double scalar_value(const aclScalar *s) {
  float f; double d; int64_t i; int32_t j;
  switch (s->dtype) {
    case 0: memcpy(&f, s->bytes, 4); return f;
    case 11: memcpy(&d, s->bytes, 8); return d;
    case 9: memcpy(&i, s->bytes, 8); return (double)i;
    case 3: memcpy(&j, s->bytes, 4); return j;
    default: return NAN;
  }
}

static int64_t numel(const aclTensor *t) {
  int64_t n = 1;
  for (uint64_t i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

/* ---- aclnnEluBackward ---- */
typedef struct { const aclTensor *g, *x; aclTensor *out; double alpha, scale, input_scale; bool is_result; } EluExec;

int aclnnEluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclScalar *alpha, const aclScalar *scale,
                                     const aclScalar *inputScale, bool isResult, const aclTensor *selfOrResult,
                                     aclTensor *gradInput, uint64_t *workspaceSize, void **executor) {
  if (!gradOutput || !alpha || !scale || !inputScale || !selfOrResult || !gradInput) {
    snprintf(last_error, sizeof last_error, "fake: null pointer");
    return 161001;
  }
  if (gradOutput->dtype != 0 || selfOrResult->dtype != 0 || gradInput->dtype != 0) {
    snprintf(last_error, sizeof last_error, "fake: only FLOAT tensors are computed");
    return 161002;
  }
  EluExec *e = calloc(1, sizeof(EluExec));
  e->g = gradOutput; e->x = selfOrResult; e->out = gradInput; e->is_result = isResult;
  e->alpha = scalar_value(alpha); e->scale = scalar_value(scale); e->input_scale = scalar_value(inputScale);
  *workspaceSize = 64;
  *executor = e;
  return 0;
}

int aclnnEluBackward(void *workspace, uint64_t workspaceSize, void *executor, void *stream) {
  (void)stream;
  if (!workspace || workspaceSize != 64) return 561000;
  EluExec *e = executor;
  const float *g = e->g->data, *x = e->x->data;
  float *out = e->out->data;
  for (int64_t i = 0; i < numel(e->g); i++) {
    double neg = e->is_result ? e->input_scale * (x[i] + e->alpha * e->scale)
                              : e->input_scale * e->alpha * e->scale * exp(x[i] * e->input_scale);
    out[i] = (float)(g[i] * (x[i] > 0 ? e->scale : neg));
  }
  free(e);
  return 0;
}

/* ---- aclnnConvolutionBackward: outputs encode the arguments ---- */
typedef struct {
  const aclTensor *go; aclTensor *gi, *gw, *gb; double code_in, code_w; bool mask[3];
} ConvExec;

int aclnnConvolutionBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *input,
                                             const aclTensor *weight, const aclIntArray *biasSizes,
                                             const aclIntArray *stride, const aclIntArray *padding,
                                             const aclIntArray *dilation, bool transposed,
                                             const aclIntArray *outputPadding, int groups,
                                             const aclBoolArray *outputMask, int8_t cubeMathType,
                                             aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
                                             uint64_t *workspaceSize, void **executor) {
  if (!gradOutput || !input || !weight || !stride || !padding || !dilation || !outputPadding || !outputMask) {
    snprintf(last_error, sizeof last_error, "fake: null pointer");
    return 161001;
  }
  ConvExec *e = calloc(1, sizeof(ConvExec));
  e->go = gradOutput; e->gi = gradInput; e->gw = gradWeight; e->gb = gradBias;
  for (int i = 0; i < 3; i++) e->mask[i] = outputMask->size > (uint64_t)i && outputMask->values[i];
  e->code_in = stride->values[0] * 1000 + padding->values[0] * 100 + dilation->values[0] * 10 + groups;
  e->code_w = cubeMathType + (transposed ? 0.5 : 0) + (biasSizes ? (double)biasSizes->values[0] * 100 : -1)
              + (double)outputPadding->size * 10000 + (double)input->format * 1e6;
  (void)weight;
  *workspaceSize = 0;
  *executor = e;
  return 0;
}

int aclnnConvolutionBackward(void *workspace, uint64_t workspaceSize, void *executor, void *stream) {
  (void)workspace; (void)workspaceSize; (void)stream;
  ConvExec *e = executor;
  if (e->mask[0] && e->gi) for (int64_t i = 0; i < numel(e->gi); i++) ((float *)e->gi->data)[i] = (float)e->code_in;
  if (e->mask[1] && e->gw) for (int64_t i = 0; i < numel(e->gw); i++) ((float *)e->gw->data)[i] = (float)e->code_w;
  if (e->mask[2] && e->gb) {
    const float *go = e->go->data;
    int64_t n = e->go->dims[0], c = e->go->dims[1], inner = numel(e->go) / (n * c);
    for (int64_t j = 0; j < c; j++) {
      double sum = 0;
      for (int64_t b = 0; b < n; b++)
        for (int64_t k = 0; k < inner; k++) sum += go[(b * c + j) * inner + k];
      ((float *)e->gb->data)[j] = (float)sum;
    }
  }
  free(e);
  return 0;
}
