/* opgen/rule_functions.h: the C++ side of the rule functions for lists and numbers that the
 * backward ops of the pooling, normalisation, loss and activation families need: broadcasting,
 * f32, reductions of lists (sum, prod, min, max, all, any) and comprehensions (map, filter).
 *
 * Each helper has the semantics of the Python rendering (generator/runtime/rules.py and Python's
 * builtins), documented once in the README's table of rule functions. Where Python raises, these
 * throw opgen::EvaluationError: the rule counts as violated. Integer sums and products throw on
 * int64 overflow (Python's integers would grow), like the arithmetic helpers of opgen/checks.h.
 *
 * Included by opgen/checks.h after opgen::EvaluationError; C++11 (no C++14/17 features).
 */
#ifndef OPGEN_RULE_FUNCTIONS_H_
#define OPGEN_RULE_FUNCTIONS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace opgen {

namespace rule_detail {

// What a sum or product of T accumulates in: int64_t for integers (bool included), double otherwise.
template <class T>
struct Total {
    typedef typename std::conditional<std::is_integral<T>::value, int64_t, double>::type type;
};

inline int64_t Plus(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_add_overflow(a, b, &out)) {
        throw EvaluationError("integer overflow");
    }
    return out;
}

inline double Plus(double a, double b)
{
    return a + b;
}

inline int64_t Times(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) {
        throw EvaluationError("integer overflow");
    }
    return out;
}

inline double Times(double a, double b)
{
    return a * b;
}

inline double ToF32(int64_t x, std::true_type)
{
    return static_cast<double>(static_cast<float>(x));  // one rounding, as CANN's ToFloat()
}

inline double ToF32(double x, std::false_type)
{
    if (std::isnan(x)) {
        return x;
    }
    // Float32's largest value plus half its last step (2^128 - 2^103): from there on, round to
    // nearest gives infinity; below it (and above FLT_MAX) it gives FLT_MAX.
    const double limit = 340282356779733661637539395458142568448.0;
    const double largest = static_cast<double>(std::numeric_limits<float>::max());
    if (std::fabs(x) >= limit) {
        return x > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    }
    if (std::fabs(x) > largest) {
        return x > 0 ? largest : -largest;
    }
    return static_cast<double>(static_cast<float>(x));
}

}  // namespace rule_detail

// broadcast_shape(a, b): NumPy's rule (CANN's BroadcastInferShape); throws when they do not broadcast.
inline std::vector<int64_t> BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b)
{
    const size_t n = a.size() > b.size() ? a.size() : b.size();
    std::vector<int64_t> out(n, 1);
    for (size_t i = 1; i <= n; ++i) {
        const int64_t x = i <= a.size() ? a[a.size() - i] : 1;
        const int64_t y = i <= b.size() ? b[b.size() - i] : 1;
        if (x == y || y == 1) {
            out[n - i] = x;
        } else if (x == 1) {
            out[n - i] = y;
        } else {
            throw EvaluationError("shapes do not broadcast");
        }
    }
    return out;
}

// broadcastable(a, b): whether broadcast_shape(a, b) exists.
inline bool Broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b)
{
    const size_t n = a.size() > b.size() ? a.size() : b.size();
    for (size_t i = 1; i <= n; ++i) {
        const int64_t x = i <= a.size() ? a[a.size() - i] : 1;
        const int64_t y = i <= b.size() ? b[b.size() - i] : 1;
        if (x != y && x != 1 && y != 1) {
            return false;
        }
    }
    return true;
}

// f32(x): x rounded to float32 (to nearest, ties to even; +-inf beyond its range; NaN stays NaN).
// Integers are rounded once, directly.
template <class T>
double F32(T x)
{
    typedef typename std::conditional<std::is_integral<T>::value, int64_t, double>::type Source;
    return rule_detail::ToF32(static_cast<Source>(x), std::is_integral<T>());
}

// sum(xs) and prod(xs), left to right from 0 and 1.
template <class T>
typename rule_detail::Total<T>::type SumOf(const std::vector<T>& values)
{
    typedef typename rule_detail::Total<T>::type R;
    R total = 0;
    for (typename std::vector<T>::const_iterator it = values.begin(); it != values.end(); ++it) {
        total = rule_detail::Plus(total, static_cast<R>(*it));
    }
    return total;
}

template <class T>
typename rule_detail::Total<T>::type ProdOf(const std::vector<T>& values)
{
    typedef typename rule_detail::Total<T>::type R;
    R total = 1;
    for (typename std::vector<T>::const_iterator it = values.begin(); it != values.end(); ++it) {
        total = rule_detail::Times(total, static_cast<R>(*it));
    }
    return total;
}

// min(xs) and max(xs) as Python computes them: the first item, replaced by each later item that is
// smaller (larger); an empty list has none.
template <class T>
T MinOf(const std::vector<T>& values)
{
    if (values.empty()) {
        throw EvaluationError("min() arg is an empty sequence");
    }
    T best = values[0];
    for (size_t i = 1; i < values.size(); ++i) {
        if (values[i] < best) {
            best = values[i];
        }
    }
    return best;
}

template <class T>
T MaxOf(const std::vector<T>& values)
{
    if (values.empty()) {
        throw EvaluationError("max() arg is an empty sequence");
    }
    T best = values[0];
    for (size_t i = 1; i < values.size(); ++i) {
        if (values[i] > best) {
            best = values[i];
        }
    }
    return best;
}

// all(xs) / any(xs) of a bool list.
inline bool AllOf(const std::vector<bool>& values)
{
    for (size_t i = 0; i < values.size(); ++i) {
        if (!values[i]) {
            return false;
        }
    }
    return true;
}

inline bool AnyOf(const std::vector<bool>& values)
{
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i]) {
            return true;
        }
    }
    return false;
}

// all(p(v) for v in xs [if c(v)]) / any(...): lazy like Python's generators, so the items after the
// deciding one are not evaluated.
template <class T, class P>
bool AllOf(const std::vector<T>& values, P predicate)
{
    for (size_t i = 0; i < values.size(); ++i) {
        if (!predicate(values[i])) {
            return false;
        }
    }
    return true;
}

template <class T, class C, class P>
bool AllOf(const std::vector<T>& values, C condition, P predicate)
{
    for (size_t i = 0; i < values.size(); ++i) {
        if (condition(values[i]) && !predicate(values[i])) {
            return false;
        }
    }
    return true;
}

template <class T, class P>
bool AnyOf(const std::vector<T>& values, P predicate)
{
    for (size_t i = 0; i < values.size(); ++i) {
        if (predicate(values[i])) {
            return true;
        }
    }
    return false;
}

template <class T, class C, class P>
bool AnyOf(const std::vector<T>& values, C condition, P predicate)
{
    for (size_t i = 0; i < values.size(); ++i) {
        if (condition(values[i]) && predicate(values[i])) {
            return true;
        }
    }
    return false;
}

// [f(v) for v in xs] and [f(v) for v in xs if c(v)], as lists of R.
template <class R, class T, class F>
std::vector<R> MapList(const std::vector<T>& values, F function)
{
    std::vector<R> out;
    out.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        out.push_back(static_cast<R>(function(values[i])));
    }
    return out;
}

template <class R, class T, class C, class F>
std::vector<R> FilterMap(const std::vector<T>& values, C condition, F function)
{
    std::vector<R> out;
    for (size_t i = 0; i < values.size(); ++i) {
        if (condition(values[i])) {
            out.push_back(static_cast<R>(function(values[i])));
        }
    }
    return out;
}

}  // namespace opgen

#endif  // OPGEN_RULE_FUNCTIONS_H_
