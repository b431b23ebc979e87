/* opgen/checks.h: the helpers that rule expressions rendered as C++ (generator.expr.to_c) use.
 *
 * Accessors read tensors, scalars and arrays through functions declared here (a validator links
 * them against the aclnn accessors of the CANN version it targets); the arithmetic, list and
 * dtype helpers are defined inline with the same semantics as the Python rendering: floor
 * division, negative indices from the end, CANN's conversion table.
 * The dtype and format constants (opgen::dtype::FLOAT16, opgen::format::NCHW) are generated from
 * the catalogue into opgen/catalog.h.
 */
#ifndef OPGEN_CHECKS_H_
#define OPGEN_CHECKS_H_

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "aclnn/acl_meta.h"
#include "opgen/catalog.h"

namespace opgen {

// A rule cannot be evaluated on these arguments (the rule counts as violated).
class EvaluationError : public std::runtime_error {
public:
    explicit EvaluationError(const std::string& message) : std::runtime_error(message) {}
};

using IntList = std::vector<int64_t>;
using BoolList = std::vector<bool>;

// Accessors (declared; defined by the code that links the validator).
IntList Shape(const aclTensor* tensor);
int64_t Rank(const aclTensor* tensor);
aclDataType DataType(const aclTensor* tensor);
aclFormat Format(const aclTensor* tensor);
int64_t Numel(const aclTensor* tensor);
bool IsEmpty(const aclTensor* tensor);
double ScalarValue(const aclScalar* scalar);
aclDataType DataType(const aclScalar* scalar);
IntList Ints(const aclIntArray* array);
BoolList Bools(const aclBoolArray* array);
std::string CurrentProduct();  // the product tag ("910b") the validator runs for
bool Castable(aclDataType from, aclDataType to);
bool Promotable(aclDataType a, aclDataType b);
aclDataType Promote(aclDataType a, aclDataType b);
bool IsPrivate(aclFormat format);

template <class V>
inline int64_t Len(const V& values) { return static_cast<int64_t>(values.size()); }

template <class T>
inline T At(const std::vector<T>& values, int64_t index) {
  return values.at(static_cast<size_t>(index < 0 ? index + Len(values) : index));
}

inline IntList SliceOf(const IntList& values, int64_t lower, int64_t upper) {
  const int64_t n = Len(values);
  lower = std::clamp<int64_t>(lower < 0 ? lower + n : lower, 0, n);
  upper = std::clamp<int64_t>(upper < 0 ? upper + n : upper, 0, n);
  return lower < upper ? IntList(values.begin() + lower, values.begin() + upper) : IntList();
}

inline int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

inline int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

inline IntList Range(int64_t start, int64_t stop) {
  IntList out;
  for (int64_t i = start; i < stop; ++i) out.push_back(i);
  return out;
}

template <class T, class F>
inline bool All(const std::vector<T>& values, F predicate) {
  for (const T& v : values) if (!predicate(v)) return false;
  return true;
}

template <class T, class F>
inline bool Any(const std::vector<T>& values, F predicate) {
  for (const T& v : values) if (predicate(v)) return true;
  return false;
}

template <class T, class F>
inline auto Sum(const std::vector<T>& values, F term) {
  decltype(term(std::declval<T>()) + 0) total = 0;
  for (const T& v : values) total += term(v);
  return total;
}

inline bool All(const BoolList& values) { return std::all_of(values.begin(), values.end(), [](bool v) { return v; }); }
inline bool Any(const BoolList& values) { return std::any_of(values.begin(), values.end(), [](bool v) { return v; }); }

template <class T, class U>
inline bool Contains(const std::vector<T>& values, const U& value) {
  return std::find(values.begin(), values.end(), static_cast<T>(value)) != values.end();
}

inline int64_t Prod(const IntList& values) {
  int64_t out = 1;
  for (int64_t v : values) out *= v;
  return out;
}

template <class T>
inline T Abs(T value) { return value < 0 ? -value : value; }

template <class A, class B>
inline std::common_type_t<A, B> Min(A a, B b) { return a < b ? a : b; }

template <class A, class B>
inline std::common_type_t<A, B> Max(A a, B b) { return a < b ? b : a; }

inline int64_t PoolOut(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil) {
  int64_t out = FloorDiv(size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0), stride) + 1;
  if (ceil && (out - 1) * stride >= size + pad) --out;
  return out;
}

inline int64_t ConvOut(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  return FloorDiv(size + 2 * pad - dilation * (kernel - 1) - 1, stride) + 1;
}

inline IntList Expand(const IntList& values, int64_t n) {
  return values.size() == 1 ? IntList(static_cast<size_t>(n), values[0]) : values;
}

inline IntList OrDefault(const IntList& values, const IntList& fallback) { return values.empty() ? fallback : values; }

inline IntList Concat(IntList a, const IntList& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace opgen

// Broadcasting, f32, reductions of lists and comprehensions (C++11).
#include "opgen/rule_functions.h"

#endif  // OPGEN_CHECKS_H_
