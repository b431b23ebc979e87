/* libopgen_python.so of the opgen host runtime: the second phase of every operator, in Python.
 *
 * libascendcl.so loads this library the first time an operator runs in a process that registered no
 * compute callback (a sample). It starts an embedded interpreter (or uses the running one), puts the
 * folders listed in OPGEN_HOSTRT_PYTHONPATH (':'-separated) or else in opgen_python.path (written next to
 * this library by the build: the generated `aclnn` package, the `generator` package, NumPy) at the front
 * of sys.path and calls
 * generator.runtime.cann.hostrt_compute(request), which computes with the operator's NumPy reference
 * kernel and writes the outputs into device memory.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "opgen/hostrt.h"

namespace {

std::once_flag g_once;
bool g_started = false;
std::string g_problem;

std::string OwnFolder()
{
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&opgen_python_compute), &info) == 0 || info.dli_fname == nullptr) {
        return ".";
    }
    std::string path = info.dli_fname;
    return path.substr(0, path.rfind('/'));
}

// The text of the pending Python exception (and clears it).
std::string TakeException()
{
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    std::string text = "unknown Python error";
    if (value != nullptr || type != nullptr) {
        PyObject* shown = PyObject_Str(value != nullptr ? value : type);
        const char* utf8 = shown != nullptr ? PyUnicode_AsUTF8(shown) : nullptr;
        if (utf8 != nullptr) {
            text = utf8;
        }
        if (type != nullptr && PyType_Check(type)) {
            text = std::string(reinterpret_cast<PyTypeObject*>(type)->tp_name) + ": " + text;
        }
        Py_XDECREF(shown);
    }
    PyErr_Clear();
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return text;
}

void Start()
{
    if (Py_IsInitialized()) {
        g_started = true;  // loaded into a Python process: the caller holds or can take the GIL
        return;
    }
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    config.parse_argv = 0;
    PyStatus status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        g_problem = status.err_msg != nullptr ? status.err_msg : "Py_InitializeFromConfig failed";
        return;
    }
    std::vector<std::string> folders;
    const char* override = std::getenv("OPGEN_HOSTRT_PYTHONPATH");  // ':'-separated, wins over the file
    if (override != nullptr && *override != '\0') {
        std::string text = override;
        for (size_t start = 0, end = 0; start <= text.size(); start = end + 1) {
            end = text.find(':', start);
            end = end == std::string::npos ? text.size() : end;
            if (end > start) {
                folders.push_back(text.substr(start, end - start));
            }
        }
    } else {
        std::ifstream list(OwnFolder() + "/opgen_python.path");
        for (std::string line; std::getline(list, line);) {
            if (!line.empty()) {
                folders.push_back(line);
            }
        }
    }
    PyObject* path = PySys_GetObject("path");  // borrowed
    for (size_t i = 0; path != nullptr && i < folders.size(); ++i) {
        PyObject* folder = PyUnicode_DecodeFSDefault(folders[i].c_str());
        if (folder != nullptr) {
            PyList_Insert(path, static_cast<Py_ssize_t>(i), folder);
            Py_DECREF(folder);
        }
    }
    PyEval_SaveThread();  // release the GIL; each call takes it with PyGILState_Ensure
    g_started = true;
}

}  // namespace

extern "C" OPGEN_EXPORT int opgen_python_compute(const char* request, void (*setError)(const char*))
{
    std::call_once(g_once, Start);
    if (!g_started) {
        setError(("opgen host runtime: cannot start the embedded Python: " + g_problem).c_str());
        return ACLNN_ERR_INNER;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    int code = ACLNN_ERR_INNER;
    std::string message;
    PyObject* module = PyImport_ImportModule("generator.runtime.cann");
    PyObject* result = module != nullptr ? PyObject_CallMethod(module, "hostrt_compute", "s", request) : nullptr;
    if (result != nullptr && PyTuple_Check(result) && PyTuple_Size(result) == 2) {
        code = static_cast<int>(PyLong_AsLong(PyTuple_GetItem(result, 0)));
        const char* text = PyUnicode_AsUTF8(PyTuple_GetItem(result, 1));
        message = text != nullptr ? text : TakeException();
    } else {
        message = "opgen host runtime: the Python compute step failed: " + TakeException();
    }
    Py_XDECREF(result);
    Py_XDECREF(module);
    PyGILState_Release(gil);
    if (code != ACLNN_SUCCESS) {
        setError(message.c_str());
    }
    return code;
}
