"""The value range of every C integer type the specs use, and the integer dtypes they hold: one table for
the model, the lint, the runtime's argument checks, the scalar storage rule and the C++ emitter.

Pure data (no imports), so lint, the runtime and the privately loaded rule functions can all read it.
"""

#: Inclusive ``(low, high)`` of each C integer type.
C_INT_RANGES = {
    "int8_t": (-(2**7), 2**7 - 1),
    "uint8_t": (0, 2**8 - 1),
    "int16_t": (-(2**15), 2**15 - 1),
    "uint16_t": (0, 2**16 - 1),
    "int": (-(2**31), 2**31 - 1),
    "int32_t": (-(2**31), 2**31 - 1),
    "uint32_t": (0, 2**32 - 1),
    "int64_t": (-(2**63), 2**63 - 1),
    "uint64_t": (0, 2**64 - 1),
}

#: The C type holding each integer aclDataType.
DTYPE_CTYPES = {
    "INT8": "int8_t",
    "UINT8": "uint8_t",
    "INT16": "int16_t",
    "UINT16": "uint16_t",
    "INT32": "int32_t",
    "UINT32": "uint32_t",
    "INT64": "int64_t",
    "UINT64": "uint64_t",
}
