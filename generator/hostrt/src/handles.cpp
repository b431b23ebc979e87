/* libnnopbase.so of the opgen host runtime: aclnn handles and what checks read from them.
 *
 * aclCreateTensor (view shape, strides, offset, format, storage shape, data address), aclCreateScalar,
 * aclCreateIntArray/BoolArray/FloatArray, aclCreateTensorList/ScalarList and their Destroy calls. Every
 * live handle is registered: a Destroy of something that is not a live handle of that type fails with
 * ACLNN_ERR_PARAM_INVALID instead of crashing, and the runtime's leak report counts the live ones.
 * As in CANN, destroying a tensor list (scalar list) destroys the tensors (scalars) it holds.
 *
 * Also here: the accessors of opgen/checks.h, the check-failure messages (in the words of the Python
 * validators, so both report the same text) and the capture of a phase-1 call into an executor request.
 */
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "opgen/catalog.h"
#include "opgen/checks.h"
#include "opgen/hostrt.h"

struct aclTensor {
    std::vector<int64_t> dims;
    std::vector<int64_t> strides;
    int64_t offset;
    aclDataType dtype;
    aclFormat format;
    std::vector<int64_t> storage;
    void* data;
};

struct aclScalar {
    aclDataType dtype;
    unsigned char bytes[16];
};

struct aclIntArray {
    std::vector<int64_t> values;
};

struct aclBoolArray {
    std::vector<bool> values;
};

struct aclFloatArray {
    std::vector<float> values;
};

struct aclTensorList {
    std::vector<aclTensor*> items;
};

struct aclScalarList {
    std::vector<aclScalar*> items;
};

namespace {

constexpr uint64_t kMaxRank = 128;
constexpr uint64_t kMaxItems = uint64_t{1} << 24;

std::mutex g_mutex;
std::set<const void*> g_live;  // every live handle

const opgen::DtypeEntry* FindDtype(int value)
{
    for (const opgen::DtypeEntry& d : opgen::kDtypeCatalog) {
        if (d.value == value) {
            return &d;
        }
    }
    return nullptr;
}

const opgen::FormatEntry* FindFormat(int value)
{
    for (const opgen::FormatEntry& f : opgen::kFormatCatalog) {
        if (f.value == value) {
            return &f;
        }
    }
    return nullptr;
}

std::string DtypeName(int value)
{
    const opgen::DtypeEntry* d = FindDtype(value);
    return d != nullptr ? d->name : "aclDataType(" + std::to_string(value) + ")";
}

std::string FormatName(int value)
{
    const opgen::FormatEntry* f = FindFormat(value);
    return f != nullptr ? f->name : "aclFormat(" + std::to_string(value) + ")";
}

template <class T>
T* Register(T* handle, const char* kind)
{
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_live.insert(handle);
    }
    opgen_hostrt_count(kind, 1);
    return handle;
}

// Unregisters a live handle; false when it is not one.
bool Unregister(const void* handle, const char* kind)
{
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (handle == nullptr || g_live.erase(handle) == 0) {
            return false;
        }
    }
    opgen_hostrt_count(kind, -1);
    return true;
}

template <class T>
T* Refuse(const std::string& message)
{
    opgen_hostrt_set_error(message.c_str());
    return nullptr;
}

int NotLive(const char* api)
{
    opgen_hostrt_set_error((std::string(api) + ": not a live handle of this type").c_str());
    return ACLNN_ERR_PARAM_INVALID;
}

std::string JsonString(const std::string& text)
{
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string Hex(const void* data, size_t bytes)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) {
        out += digits[p[i] >> 4];
        out += digits[p[i] & 15];
    }
    return out;
}

template <class T>
std::string JsonList(const std::vector<T>& values)
{
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) {
        out += (i ? ", " : "") + std::to_string(values[i]);
    }
    return out + "]";
}

std::string PyList(const std::vector<int64_t>& values)
{
    return JsonList(values);
}

// Half and bfloat16 bits -> double (exact).
double HalfToDouble(uint16_t half)
{
    int exponent = (half >> 10) & 0x1F;
    int mantissa = half & 0x3FF;
    double magnitude = 0.0;
    if (exponent == 0x1F) {
        magnitude = mantissa == 0 ? INFINITY : NAN;
    } else if (exponent == 0) {
        magnitude = std::ldexp(static_cast<double>(mantissa), -24);
    } else {
        magnitude = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
    }
    return (half & 0x8000) != 0 ? -magnitude : magnitude;
}

double Bf16ToDouble(uint16_t bits)
{
    uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float value = 0.0f;
    std::memcpy(&value, &wide, sizeof value);
    return value;
}

template <class T>
T Read(const aclScalar* scalar)
{
    T value;
    std::memcpy(&value, scalar->bytes, sizeof value);
    return value;
}

enum class ScalarKind { kFloat, kSigned, kUnsigned, kBool, kComplex, kOther };

ScalarKind KindOf(const aclScalar* scalar)
{
    switch (static_cast<int>(scalar->dtype)) {
        case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_DOUBLE:
            return ScalarKind::kFloat;
        case ACL_INT8: case ACL_INT16: case ACL_INT32: case ACL_INT64:
            return ScalarKind::kSigned;
        case ACL_UINT8: case ACL_UINT16: case ACL_UINT32: case ACL_UINT64:
            return ScalarKind::kUnsigned;
        case ACL_BOOL:
            return ScalarKind::kBool;
        case ACL_COMPLEX64: case ACL_COMPLEX128:
            return ScalarKind::kComplex;
        default:
            return ScalarKind::kOther;
    }
}

double FloatValue(const aclScalar* scalar)
{
    switch (static_cast<int>(scalar->dtype)) {
        case ACL_FLOAT: return Read<float>(scalar);
        case ACL_FLOAT16: return HalfToDouble(Read<uint16_t>(scalar));
        case ACL_BF16: return Bf16ToDouble(Read<uint16_t>(scalar));
        case ACL_DOUBLE: return Read<double>(scalar);
        case ACL_COMPLEX64: return Read<float>(scalar);
        case ACL_COMPLEX128: return Read<double>(scalar);
        default: return 0.0;
    }
}

long long SignedValue(const aclScalar* scalar)
{
    switch (static_cast<int>(scalar->dtype)) {
        case ACL_INT8: return Read<int8_t>(scalar);
        case ACL_INT16: return Read<int16_t>(scalar);
        case ACL_INT32: return Read<int32_t>(scalar);
        default: return Read<int64_t>(scalar);
    }
}

unsigned long long UnsignedValue(const aclScalar* scalar)
{
    switch (static_cast<int>(scalar->dtype)) {
        case ACL_UINT8: return Read<uint8_t>(scalar);
        case ACL_UINT16: return Read<uint16_t>(scalar);
        case ACL_UINT32: return Read<uint32_t>(scalar);
        default: return Read<uint64_t>(scalar);
    }
}

// Python's repr() of a scalar's value as the validators hold it.
std::string ScalarRepr(const aclScalar* scalar)
{
    switch (KindOf(scalar)) {
        case ScalarKind::kFloat:
            return opgen::PyRepr(FloatValue(scalar));
        case ScalarKind::kSigned:
            return std::to_string(SignedValue(scalar));
        case ScalarKind::kUnsigned:
            return std::to_string(UnsignedValue(scalar));
        case ScalarKind::kBool:
            return scalar->bytes[0] != 0 ? "True" : "False";
        case ScalarKind::kComplex: {
            double real = 0.0, imag = 0.0;
            if (scalar->dtype == ACL_COMPLEX64) {
                float parts[2];
                std::memcpy(parts, scalar->bytes, sizeof parts);
                real = parts[0];
                imag = parts[1];
            } else {
                double parts[2];
                std::memcpy(parts, scalar->bytes, sizeof parts);
                real = parts[0];
                imag = parts[1];
            }
            if (imag == 0.0 && !std::signbit(imag)) {
                return opgen::PyRepr(real);  // a Python float given for a complex scalar
            }
            auto part = [](double v) {
                std::string text = opgen::PyRepr(v);
                return text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0 ? text.substr(0, text.size() - 2)
                                                                                     : text;
            };
            return "(" + part(real) + (std::signbit(imag) ? "-" : "+") + part(std::fabs(imag)) + "j)";
        }
        default:
            return "<" + DtypeName(scalar->dtype) + " value>";
    }
}

// The element range [low, high] a view reaches, in elements from the data address.
void Extent(const aclTensor* t, int64_t* low, int64_t* high)
{
    *low = *high = t->offset;
    for (size_t i = 0; i < t->dims.size(); ++i) {
        if (t->dims[i] <= 0) {
            *low = 0;
            *high = -1;  // empty: touches nothing
            return;
        }
        int64_t reach = (t->dims[i] - 1) * t->strides[i];
        (reach < 0 ? *low : *high) += reach;
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Handles

extern "C" {

ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* view_dims, uint64_t view_dims_num, aclDataType data_type,
                                               const int64_t* stride, int64_t offset, aclFormat format,
                                               const int64_t* storage_dims, uint64_t storage_dims_num,
                                               void* tensor_data)
{
    if (opgen_hostrt_inject("aclCreateTensor") != 0) {
        return nullptr;
    }
    if (view_dims_num > kMaxRank || storage_dims_num > kMaxRank) {
        return Refuse<aclTensor>("aclCreateTensor: more than " + std::to_string(kMaxRank) + " dimensions");
    }
    if ((view_dims == nullptr && view_dims_num > 0) || (storage_dims == nullptr && storage_dims_num > 0) ||
        (stride == nullptr && view_dims_num > 0)) {
        return Refuse<aclTensor>("aclCreateTensor: view_dims, stride or storage_dims is null");
    }
    if (offset < 0) {
        return Refuse<aclTensor>("aclCreateTensor: offset is negative");
    }
    aclTensor* tensor = new aclTensor;
    tensor->dims.assign(view_dims, view_dims + view_dims_num);
    tensor->strides.assign(stride, stride + view_dims_num);
    tensor->offset = offset;
    tensor->dtype = data_type;
    tensor->format = format;
    tensor->storage.assign(storage_dims, storage_dims + storage_dims_num);
    tensor->data = tensor_data;
    return Register(tensor, "aclTensor");
}

ACL_FUNC_VISIBILITY aclScalar* aclCreateScalar(void* value, aclDataType data_type)
{
    if (opgen_hostrt_inject("aclCreateScalar") != 0) {
        return nullptr;
    }
    const opgen::DtypeEntry* dtype = FindDtype(data_type);
    if (value == nullptr) {
        return Refuse<aclScalar>("aclCreateScalar: value is null");
    }
    if (dtype == nullptr || dtype->bytes <= 0 || dtype->bytes > 16) {
        return Refuse<aclScalar>("aclCreateScalar: no host scalar of dtype " + DtypeName(data_type));
    }
    aclScalar* scalar = new aclScalar;
    scalar->dtype = data_type;
    std::memset(scalar->bytes, 0, sizeof scalar->bytes);
    std::memcpy(scalar->bytes, value, static_cast<size_t>(dtype->bytes));
    return Register(scalar, "aclScalar");
}

ACL_FUNC_VISIBILITY aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size)
{
    if (opgen_hostrt_inject("aclCreateIntArray") != 0) {
        return nullptr;
    }
    if ((value == nullptr && size > 0) || size > kMaxItems) {
        return Refuse<aclIntArray>("aclCreateIntArray: value is null or size is too large");
    }
    aclIntArray* array = new aclIntArray;
    array->values.assign(value, value + size);
    return Register(array, "aclIntArray");
}

ACL_FUNC_VISIBILITY aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size)
{
    if (opgen_hostrt_inject("aclCreateFloatArray") != 0) {
        return nullptr;
    }
    if ((value == nullptr && size > 0) || size > kMaxItems) {
        return Refuse<aclFloatArray>("aclCreateFloatArray: value is null or size is too large");
    }
    aclFloatArray* array = new aclFloatArray;
    array->values.assign(value, value + size);
    return Register(array, "aclFloatArray");
}

ACL_FUNC_VISIBILITY aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size)
{
    if (opgen_hostrt_inject("aclCreateBoolArray") != 0) {
        return nullptr;
    }
    if ((value == nullptr && size > 0) || size > kMaxItems) {
        return Refuse<aclBoolArray>("aclCreateBoolArray: value is null or size is too large");
    }
    aclBoolArray* array = new aclBoolArray;
    array->values.assign(value, value + size);
    return Register(array, "aclBoolArray");
}

ACL_FUNC_VISIBILITY aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size)
{
    if (opgen_hostrt_inject("aclCreateTensorList") != 0) {
        return nullptr;
    }
    if ((value == nullptr && size > 0) || size > kMaxItems) {
        return Refuse<aclTensorList>("aclCreateTensorList: value is null or size is too large");
    }
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        for (uint64_t i = 0; i < size; ++i) {
            if (value[i] != nullptr && g_live.count(value[i]) == 0) {
                return Refuse<aclTensorList>("aclCreateTensorList: item " + std::to_string(i) + " is not a live aclTensor");
            }
        }
    }
    aclTensorList* list = new aclTensorList;
    for (uint64_t i = 0; i < size; ++i) {
        list->items.push_back(const_cast<aclTensor*>(value[i]));
    }
    return Register(list, "aclTensorList");
}

ACL_FUNC_VISIBILITY aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size)
{
    if (opgen_hostrt_inject("aclCreateScalarList") != 0) {
        return nullptr;
    }
    if ((value == nullptr && size > 0) || size > kMaxItems) {
        return Refuse<aclScalarList>("aclCreateScalarList: value is null or size is too large");
    }
    aclScalarList* list = new aclScalarList;
    for (uint64_t i = 0; i < size; ++i) {
        list->items.push_back(const_cast<aclScalar*>(value[i]));
    }
    return Register(list, "aclScalarList");
}

ACL_FUNC_VISIBILITY int aclDestroyTensor(const aclTensor* tensor)
{
    if (!Unregister(tensor, "aclTensor")) {
        return tensor == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyTensor");
    }
    delete tensor;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY int aclDestroyScalar(const aclScalar* scalar)
{
    if (!Unregister(scalar, "aclScalar")) {
        return scalar == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyScalar");
    }
    delete scalar;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY int aclDestroyIntArray(const aclIntArray* array)
{
    if (!Unregister(array, "aclIntArray")) {
        return array == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyIntArray");
    }
    delete array;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY int aclDestroyFloatArray(const aclFloatArray* array)
{
    if (!Unregister(array, "aclFloatArray")) {
        return array == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyFloatArray");
    }
    delete array;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY int aclDestroyBoolArray(const aclBoolArray* array)
{
    if (!Unregister(array, "aclBoolArray")) {
        return array == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyBoolArray");
    }
    delete array;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY int aclDestroyTensorList(const aclTensorList* array)
{
    if (!Unregister(array, "aclTensorList")) {
        return array == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyTensorList");
    }
    for (aclTensor* item : array->items) {
        aclDestroyTensor(item);  // the list owns its tensors, as in CANN
    }
    delete array;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY int aclDestroyScalarList(const aclScalarList* array)
{
    if (!Unregister(array, "aclScalarList")) {
        return array == nullptr ? ACLNN_SUCCESS : NotLive("aclDestroyScalarList");
    }
    for (aclScalar* item : array->items) {
        aclDestroyScalar(item);
    }
    delete array;
    return ACLNN_SUCCESS;
}

}  // extern "C"

// ---------------------------------------------------------------------------------------------------
// Accessors and catalogue lookups of opgen/checks.h

namespace opgen {

IntList Shape(const aclTensor* tensor)
{
    return tensor->dims;
}

int64_t Rank(const aclTensor* tensor)
{
    return static_cast<int64_t>(tensor->dims.size());
}

aclDataType DataType(const aclTensor* tensor)
{
    return tensor->dtype;
}

aclFormat Format(const aclTensor* tensor)
{
    return tensor->format;
}

int64_t Numel(const aclTensor* tensor)
{
    return Prod(tensor->dims);
}

bool IsEmpty(const aclTensor* tensor)
{
    for (int64_t d : tensor->dims) {
        if (d == 0) {
            return true;
        }
    }
    return false;
}

double ScalarValue(const aclScalar* scalar)
{
    switch (KindOf(scalar)) {
        case ScalarKind::kFloat:
        case ScalarKind::kComplex:
            return FloatValue(scalar);
        case ScalarKind::kSigned:
            return static_cast<double>(SignedValue(scalar));
        case ScalarKind::kUnsigned:
            return static_cast<double>(UnsignedValue(scalar));
        case ScalarKind::kBool:
            return scalar->bytes[0] != 0 ? 1.0 : 0.0;
        default:
            throw EvaluationError("the value of a " + DtypeName(scalar->dtype) + " scalar is not a number");
    }
}

aclDataType DataType(const aclScalar* scalar)
{
    return scalar->dtype;
}

IntList Ints(const aclIntArray* array)
{
    return array->values;
}

BoolList Bools(const aclBoolArray* array)
{
    return array->values;
}

FloatList Floats(const aclFloatArray* array)
{
    return FloatList(array->values.begin(), array->values.end());
}

std::string CurrentProduct()
{
    return opgen_hostrt_product();
}

aclDataType DtypeNamed(const char* name)
{
    for (const DtypeEntry& d : kDtypeCatalog) {
        if (std::strcmp(d.name, name) == 0) {
            return static_cast<aclDataType>(d.value);
        }
    }
    throw EvaluationError(std::string("unknown dtype ") + name);
}

aclFormat FormatNamed(const char* name)
{
    for (const FormatEntry& f : kFormatCatalog) {
        if (std::strcmp(f.name, name) == 0) {
            return static_cast<aclFormat>(f.value);
        }
    }
    throw EvaluationError(std::string("unknown format ") + name);
}

bool Castable(aclDataType from, aclDataType to)
{
    for (const auto& pair : kCastable) {
        if (pair[0] == from && pair[1] == to) {
            return true;
        }
    }
    return false;
}

bool Promotable(aclDataType a, aclDataType b)
{
    for (const auto& row : kPromotion) {
        if (row[0] == a && row[1] == b) {
            return true;
        }
    }
    return false;
}

aclDataType Promote(aclDataType a, aclDataType b)
{
    for (const auto& row : kPromotion) {
        if (row[0] == a && row[1] == b) {
            return static_cast<aclDataType>(row[2]);
        }
    }
    throw EvaluationError(DtypeName(a) + " and " + DtypeName(b) + " cannot be promoted");
}

bool IsPrivate(aclFormat format)
{
    const FormatEntry* f = FindFormat(format);
    return f != nullptr && f->isPrivate;
}

bool DtypeIn(aclDataType dtype, std::initializer_list<const char*> names)
{
    const DtypeEntry* d = FindDtype(dtype);
    for (const char* name : names) {
        if (d != nullptr && std::strcmp(d->name, name) == 0) {
            return true;
        }
    }
    return false;
}

bool FormatIn(aclFormat format, std::initializer_list<const char*> names)
{
    const FormatEntry* f = FindFormat(format);
    for (const char* name : names) {
        if (f != nullptr && std::strcmp(f->name, name) == 0) {
            return true;
        }
    }
    return false;
}

bool ProductIn(const std::string& product, std::initializer_list<const char*> tags)
{
    for (const char* tag : tags) {
        if (product == tag) {
            return true;
        }
    }
    return false;
}

bool DtypeSupported(aclDataType dtype, const std::string& product, std::initializer_list<ProductDtypes> table)
{
    for (const ProductDtypes& row : table) {
        if (product == row.product) {
            return DtypeIn(dtype, row.dtypes);
        }
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------
// Messages

std::string PyRepr(double value)
{
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        return value > 0 ? "inf" : "-inf";
    }
    if (value == 0.0) {
        return std::signbit(value) ? "-0.0" : "0.0";
    }
    // Shortest digits that round-trip (what Python's repr uses), from %e.
    char buffer[64];
    int precision = 0;
    for (precision = 0; precision < 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*e", precision, value);
        if (std::strtod(buffer, nullptr) == value) {
            break;
        }
    }
    std::string text = buffer;
    bool negative = text[0] == '-';
    if (negative) {
        text.erase(0, 1);
    }
    size_t e = text.find('e');
    int exponent = std::atoi(text.c_str() + e + 1);
    std::string digits;
    for (size_t i = 0; i < e; ++i) {
        if (text[i] != '.') {
            digits += text[i];
        }
    }
    while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
    }
    int point = exponent + 1;  // digits d1 d2 ... = 0.d1d2... x 10^point
    std::string out;
    if (point > -4 && point <= 16) {
        if (point <= 0) {
            out = "0." + std::string(static_cast<size_t>(-point), '0') + digits;
        } else if (static_cast<size_t>(point) >= digits.size()) {
            out = digits + std::string(static_cast<size_t>(point) - digits.size(), '0') + ".0";
        } else {
            out = digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(static_cast<size_t>(point));
        }
    } else {
        out = digits.substr(0, 1);
        if (digits.size() > 1) {
            out += "." + digits.substr(1);
        }
        char tail[16];
        std::snprintf(tail, sizeof tail, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
        out += tail;
    }
    return negative ? "-" + out : out;
}

SeenValue Seen(const char* name, const aclTensor* value)
{
    if (value == nullptr) {
        return {name, "None"};
    }
    return {name, "shape=" + PyList(value->dims) + ", dtype=" + DtypeName(value->dtype) +
                      ", format=" + FormatName(value->format)};
}

SeenValue Seen(const char* name, const aclScalar* value)
{
    if (value == nullptr) {
        return {name, "None"};
    }
    return {name, ScalarRepr(value) + " (" + DtypeName(value->dtype) + ")"};
}

SeenValue Seen(const char* name, const aclIntArray* value)
{
    return {name, value == nullptr ? "None" : PyList(value->values)};
}

SeenValue Seen(const char* name, const aclBoolArray* value)
{
    if (value == nullptr) {
        return {name, "None"};
    }
    std::string text = "[";
    for (size_t i = 0; i < value->values.size(); ++i) {
        text += std::string(i ? ", " : "") + (value->values[i] ? "True" : "False");
    }
    return {name, text + "]"};
}

SeenValue Seen(const char* name, const aclFloatArray* value)
{
    if (value == nullptr) {
        return {name, "None"};
    }
    std::string text = "[";
    for (size_t i = 0; i < value->values.size(); ++i) {
        text += (i ? ", " : "") + PyRepr(value->values[i]);
    }
    return {name, text + "]"};
}

SeenValue Seen(const char* name, const aclTensorList* value)
{
    if (value == nullptr) {
        return {name, "None"};
    }
    std::string text = "[";
    for (size_t i = 0; i < value->items.size(); ++i) {
        text += std::string(i ? ", " : "") + "(" + Seen("", value->items[i]).text + ")";
    }
    return {name, text + "]"};
}

SeenValue Seen(const char* name, const char* value)
{
    if (value == nullptr) {
        return {name, "None"};
    }
    // Python's repr of a str (quotes chosen as Python does; control characters escaped).
    std::string text = value;
    char quote = (text.find('\'') != std::string::npos && text.find('"') == std::string::npos) ? '"' : '\'';
    std::string out(1, quote);
    for (unsigned char c : text) {
        if (c == '\\' || c == static_cast<unsigned char>(quote)) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
            out += buffer;
        } else {
            out += static_cast<char>(c);
        }
    }
    return {name, out + quote};
}

SeenValue Seen(const char* name, bool value)
{
    return {name, value ? "True" : "False"};
}

SeenValue Seen(const char* name, double value)
{
    return {name, PyRepr(value)};
}

SeenValue SeenInteger(const char* name, long long value)
{
    return {name, std::to_string(value)};
}

SeenValue SeenUnsigned(const char* name, unsigned long long value)
{
    return {name, std::to_string(value)};
}

SeenValue SeenProduct(const std::string& product)
{
    return {"product", "'" + product + "'"};
}

aclnnStatus Fail(const char* op, const CheckInfo& check, std::vector<SeenValue> seen, const std::string& detail)
{
    std::string message = std::string("aclnn") + op + ": check '" + check.id + "' failed: " + check.text;
    if (!detail.empty()) {
        message += " (" + detail + ")";
    }
    message += std::string(" Rule: ") + check.rule + ".";
    // Python builds a dict: a repeated name keeps its first position and its last value.
    std::vector<SeenValue> unique;
    for (const SeenValue& value : seen) {
        bool found = false;
        for (SeenValue& kept : unique) {
            if (kept.name == value.name) {
                kept.text = value.text;
                found = true;
            }
        }
        if (!found) {
            unique.push_back(value);
        }
    }
    if (!unique.empty()) {
        message += " Seen: ";
        for (size_t i = 0; i < unique.size(); ++i) {
            message += (i ? "; " : "") + unique[i].name + ": " + unique[i].text;
        }
        message += ".";
    }
    opgen_hostrt_set_error(message.c_str());
    return check.code;
}

aclnnStatus Error(aclnnStatus code, const std::string& message)
{
    opgen_hostrt_set_error(message.c_str());
    return code;
}

// ---------------------------------------------------------------------------------------------------
// Executor requests

Request::Request(const char* op, const char* snake)
{
    json_ = "{\"op\": " + JsonString(op) + ", \"snake\": " + JsonString(snake) +
            ", \"product\": " + JsonString(opgen_hostrt_product()) + ", \"args\": [";
}

std::string Request::TensorJson(const char* name, const aclTensor* t)
{
    if (t == nullptr) {
        return "null";
    }
    const DtypeEntry* dtype = FindDtype(t->dtype);
    int64_t low = 0, high = 0;
    Extent(t, &low, &high);
    if (high >= low && dtype != nullptr && dtype->bytes > 0) {
        // The storage the view may read or write: from the data address to the end of the storage shape.
        int64_t storage = 1;
        for (int64_t d : t->storage) {
            storage = d > 0 && storage <= INT64_MAX / d ? storage * d : (d <= 0 ? 0 : INT64_MAX);
        }
        uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(storage, high + 1)) * static_cast<uint64_t>(dtype->bytes);
        regions_.push_back({name, t->data, bytes});
    }
    char address[32];
    std::snprintf(address, sizeof address, "%" PRIuPTR, reinterpret_cast<uintptr_t>(t->data));
    return "{\"shape\": " + JsonList(t->dims) + ", \"strides\": " + JsonList(t->strides) +
           ", \"offset\": " + std::to_string(t->offset) + ", \"storage\": " + JsonList(t->storage) +
           ", \"dtype\": " + JsonString(DtypeName(t->dtype)) + ", \"format\": " + JsonString(FormatName(t->format)) +
           ", \"data\": " + address + "}";
}

#define OPGEN_ARG(kind, rest) \
    json_ += std::string(first_ ? "" : ", ") + "{\"name\": " + JsonString(name) + ", \"kind\": \"" kind "\"" + rest + "}"; \
    first_ = false

void Request::Add(const char* name, const aclTensor* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    OPGEN_ARG("tensor", ", \"tensor\": " + TensorJson(name, value));
}

void Request::Add(const char* name, const aclTensorList* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    std::string items = "[";
    for (size_t i = 0; i < value->items.size(); ++i) {
        std::string item = std::string(name) + "[" + std::to_string(i) + "]";
        items += (i ? ", " : "") + TensorJson(item.c_str(), value->items[i]);
    }
    OPGEN_ARG("tensors", ", \"tensors\": " + items + "]");
}

void Request::Add(const char* name, const aclScalar* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    const DtypeEntry* dtype = FindDtype(value->dtype);
    size_t bytes = dtype != nullptr ? static_cast<size_t>(dtype->bytes) : 0;
    OPGEN_ARG("scalar", ", \"dtype\": " + JsonString(DtypeName(value->dtype)) + ", \"bytes\": \"" +
                            Hex(value->bytes, bytes) + "\"");
}

void Request::Add(const char* name, const aclIntArray* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    OPGEN_ARG("ints", ", \"values\": " + JsonList(value->values));
}

void Request::Add(const char* name, const aclBoolArray* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    std::string list = "[";
    for (size_t i = 0; i < value->values.size(); ++i) {
        list += std::string(i ? ", " : "") + (value->values[i] ? "true" : "false");
    }
    OPGEN_ARG("bools", ", \"values\": " + list + "]");
}

void Request::Add(const char* name, const aclFloatArray* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    OPGEN_ARG("floats", ", \"bytes\": \"" + Hex(value->values.data(), value->values.size() * sizeof(float)) + "\"");
}

void Request::Add(const char* name, const char* value)
{
    if (value == nullptr) {
        OPGEN_ARG("null", "");
        return;
    }
    OPGEN_ARG("string", ", \"bytes\": \"" + Hex(value, std::strlen(value)) + "\"");
}

void Request::Add(const char* name, bool value)
{
    OPGEN_ARG("bool", std::string(", \"value\": ") + (value ? "true" : "false"));
}

void Request::Add(const char* name, double value)
{
    OPGEN_ARG("float", ", \"bytes\": \"" + Hex(&value, sizeof value) + "\"");
}

void Request::AddInteger(const char* name, long long value)
{
    OPGEN_ARG("int", ", \"value\": " + std::to_string(value));
}

void Request::AddUnsigned(const char* name, unsigned long long value)
{
    OPGEN_ARG("int", ", \"value\": " + std::to_string(value));
}

#undef OPGEN_ARG

aclnnStatus Request::Finish(const char* api, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (workspaceSize == nullptr || executor == nullptr) {
        return Error(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": workspaceSize or executor is a null pointer");
    }
    json_ += "]}";
    std::vector<OpgenRegion> regions;
    for (const Region& region : regions_) {
        regions.push_back({region.name.c_str(), region.address, region.bytes});
    }
    *executor = opgen_hostrt_new_executor(json_.c_str(), regions.data(), regions.size());
    *workspaceSize = opgen_hostrt_workspace_size();
    return ACLNN_SUCCESS;
}

}  // namespace opgen
