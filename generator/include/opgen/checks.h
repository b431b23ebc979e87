/* opgen/checks.h: what rule expressions rendered as C++ (generator.expr.to_c) call.
 *
 * The host runtime's generated CheckParams units (generated/hostrt/<op>.cpp) evaluate every rule of a
 * spec through these helpers, with the semantics of the Python rendering that the generated validators
 * use (generator/runtime/rules.py):
 *
 *  - integers are int64_t; where Python's integers would grow past int64, the helpers throw
 *    EvaluationError ("integer overflow") instead of overflowing;
 *  - `//` and `%` floor like Python; a division by zero throws EvaluationError with Python's message;
 *  - indices may be negative (from the end); an index out of range throws EvaluationError;
 *  - dtype conversion and promotion come from the tables generated into opgen/catalog.h from
 *    generator/runtime/rules.py.
 *
 * A rule that throws EvaluationError counts as violated, as in the Python validators. Accessors for the
 * aclnn handles (Shape, DataType, Ints, ...) are defined by the host runtime (libnnopbase).
 * C++17.
 */
#ifndef OPGEN_CHECKS_H_
#define OPGEN_CHECKS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "aclnn/acl_meta.h"

// The host runtime builds with -fvisibility=hidden; these are its interface between libraries.
#pragma GCC visibility push(default)

namespace opgen {

// A rule cannot be evaluated on these arguments; what() is Python's message for the same case.
class EvaluationError : public std::runtime_error {
public:
    explicit EvaluationError(const std::string& message) : std::runtime_error(message) {}
};

using IntList = std::vector<int64_t>;
using BoolList = std::vector<bool>;
using FloatList = std::vector<double>;

// Accessors (host runtime).
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
FloatList Floats(const aclFloatArray* array);
std::string CurrentProduct();

// Catalogue lookups (host runtime, from opgen/catalog.h).
aclDataType DtypeNamed(const char* name);
aclFormat FormatNamed(const char* name);
bool Castable(aclDataType from, aclDataType to);
bool Promotable(aclDataType a, aclDataType b);
aclDataType Promote(aclDataType a, aclDataType b);
bool IsPrivate(aclFormat format);

template <class T>
constexpr bool kIntegral = std::is_integral<T>::value;  // bool counts as an integer, as in Python

inline int64_t Checked(bool overflow, const int64_t& value)
{
    if (overflow) {
        throw EvaluationError("integer overflow");
    }
    return value;
}

template <class A, class B>
auto Add(A a, B b)
{
    if constexpr (kIntegral<A> && kIntegral<B>) {
        int64_t out = 0;
        bool overflow = __builtin_add_overflow(static_cast<int64_t>(a), static_cast<int64_t>(b), &out);
        return Checked(overflow, out);
    } else {
        return static_cast<double>(a) + static_cast<double>(b);
    }
}

template <class A, class B>
auto Sub(A a, B b)
{
    if constexpr (kIntegral<A> && kIntegral<B>) {
        int64_t out = 0;
        bool overflow = __builtin_sub_overflow(static_cast<int64_t>(a), static_cast<int64_t>(b), &out);
        return Checked(overflow, out);
    } else {
        return static_cast<double>(a) - static_cast<double>(b);
    }
}

template <class A, class B>
auto Mul(A a, B b)
{
    if constexpr (kIntegral<A> && kIntegral<B>) {
        int64_t out = 0;
        bool overflow = __builtin_mul_overflow(static_cast<int64_t>(a), static_cast<int64_t>(b), &out);
        return Checked(overflow, out);
    } else {
        return static_cast<double>(a) * static_cast<double>(b);
    }
}

template <class A>
auto Neg(A a)
{
    if constexpr (kIntegral<A>) {
        return Sub(int64_t{0}, a);
    } else {
        return -static_cast<double>(a);
    }
}

template <class A, class B>
auto FloorDiv(A a, B b)
{
    if constexpr (kIntegral<A> && kIntegral<B>) {
        const int64_t x = a, y = b;
        if (y == 0) {
            throw EvaluationError("integer division or modulo by zero");
        }
        if (x == std::numeric_limits<int64_t>::min() && y == -1) {
            throw EvaluationError("integer overflow");
        }
        const int64_t q = x / y;
        return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    } else {
        const double x = a, y = b;
        if (y == 0.0) {
            throw EvaluationError("float floor division by zero");
        }
        return std::floor(x / y);
    }
}

template <class A, class B>
auto FloorMod(A a, B b)
{
    if constexpr (kIntegral<A> && kIntegral<B>) {
        const int64_t x = a, y = b;
        if (y == 0) {
            throw EvaluationError("integer modulo by zero");
        }
        if (y == -1) {
            return int64_t{0};
        }
        const int64_t r = x % y;
        return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
        const double x = a, y = b;
        if (y == 0.0) {
            throw EvaluationError("float modulo");
        }
        double r = std::fmod(x, y);
        if (r != 0.0 && ((r < 0.0) != (y < 0.0))) {
            r += y;
        }
        return r;
    }
}

template <class A, class B>
double TrueDiv(A a, B b)
{
    if (static_cast<double>(b) == 0.0) {
        throw EvaluationError(kIntegral<A> && kIntegral<B> ? "division by zero" : "float division by zero");
    }
    return static_cast<double>(a) / static_cast<double>(b);
}

inline int64_t CeilDiv(int64_t a, int64_t b)
{
    return Neg(FloorDiv(Neg(a), b));
}

template <class V>
int64_t Len(const V& values)
{
    return static_cast<int64_t>(values.size());
}

template <class T>
T At(const std::vector<T>& values, int64_t index)
{
    const int64_t n = Len(values);
    const int64_t i = index < 0 ? index + n : index;
    if (i < 0 || i >= n) {
        throw EvaluationError("tuple index out of range");
    }
    return values[static_cast<size_t>(i)];
}

template <class T>
std::vector<T> SliceOf(const std::vector<T>& values, int64_t lower, int64_t upper)
{
    const int64_t n = Len(values);
    lower = std::clamp<int64_t>(lower < 0 ? std::max<int64_t>(lower, -n) + n : lower, 0, n);
    upper = std::clamp<int64_t>(upper < 0 ? std::max<int64_t>(upper, -n) + n : upper, 0, n);
    return lower < upper ? std::vector<T>(values.begin() + lower, values.begin() + upper) : std::vector<T>();
}

// Lists a rule may build (range, expand) are bounded: past this the rule cannot be evaluated.
constexpr int64_t kMaxListLength = int64_t{1} << 24;

inline IntList Range(int64_t start, int64_t stop)
{
    if (stop > start && Sub(stop, start) > kMaxListLength) {
        throw EvaluationError("range too long for a rule");
    }
    IntList out;
    for (int64_t i = start; i < stop; ++i) {
        out.push_back(i);
    }
    return out;
}

template <class T, class F>
bool All(const std::vector<T>& values, F predicate)
{
    for (const T& v : values) {
        if (!predicate(v)) {
            return false;
        }
    }
    return true;
}

template <class T, class F>
bool Any(const std::vector<T>& values, F predicate)
{
    for (const T& v : values) {
        if (predicate(v)) {
            return true;
        }
    }
    return false;
}

template <class T, class F>
auto Sum(const std::vector<T>& values, F term)
{
    using R = decltype(Add(term(std::declval<T>()), int64_t{0}));
    R total = 0;
    for (const T& v : values) {
        total = Add(total, term(v));
    }
    return total;
}

inline bool All(const BoolList& values)
{
    return std::all_of(values.begin(), values.end(), [](bool v) { return v; });
}

inline bool Any(const BoolList& values)
{
    return std::any_of(values.begin(), values.end(), [](bool v) { return v; });
}

template <class T>
auto Sum(const std::vector<T>& values)
{
    return Sum(values, [](T v) { return v; });
}

template <class T, class U>
bool Contains(const std::vector<T>& values, const U& value)
{
    return std::any_of(values.begin(), values.end(), [&](const T& v) { return v == value; });
}

// List equality across element types (Python compares (1, 0) == (True, False) element by element).
template <class T, class U>
bool ListEq(const std::vector<T>& a, const std::vector<U>& b)
{
    if (a.size() != b.size()) {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        if (!(a[i] == b[i])) {
            return false;
        }
    }
    return true;
}

inline int64_t Prod(const IntList& values)
{
    int64_t out = 1;
    for (int64_t v : values) {
        out = Mul(out, v);
    }
    return out;
}

template <class T>
auto Abs(T value)
{
    if constexpr (kIntegral<T>) {
        return value < 0 ? Neg(value) : static_cast<int64_t>(value);
    } else {
        return std::fabs(static_cast<double>(value));
    }
}

template <class A, class B>
std::common_type_t<A, B> Min(A a, B b)
{
    return b < a ? b : a;
}

template <class A, class B>
std::common_type_t<A, B> Max(A a, B b)
{
    return a < b ? b : a;
}

inline int64_t PoolOut(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil)
{
    // (size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0)) // stride + 1
    int64_t span = Sub(Sub(Add(size, Mul(2, pad)), Mul(dilation, Sub(kernel, 1))), 1);
    if (ceil) {
        span = Add(span, Sub(stride, 1));
    }
    int64_t out = Add(FloorDiv(span, stride), 1);
    if (ceil && Mul(Sub(out, 1), stride) >= Add(size, pad)) {
        --out;
    }
    return out;
}

inline int64_t ConvOut(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation)
{
    int64_t span = Sub(Sub(Add(size, Mul(2, pad)), Mul(dilation, Sub(kernel, 1))), 1);
    return Add(FloorDiv(span, stride), 1);
}

inline IntList Expand(const IntList& values, int64_t n)
{
    if (values.size() != 1) {
        return values;
    }
    if (n > kMaxListLength) {
        throw EvaluationError("cannot fit 'int' into an index-sized integer");
    }
    return n > 0 ? IntList(static_cast<size_t>(n), values[0]) : IntList();
}

inline IntList OrDefault(const IntList& values, const IntList& fallback)
{
    return values.empty() ? fallback : values;
}

template <class T>
std::vector<T> Concat(std::vector<T> a, const std::vector<T>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace opgen

#pragma GCC visibility pop

// Broadcasting, f32, reductions of lists and comprehensions (C++11).
#include "opgen/rule_functions.h"

#endif  // OPGEN_CHECKS_H_
