/* The cube unit's MAD chain at machine speed (NUMERICS.md section 1), bit for bit.
 *
 * For every output element (i, j): acc = start; for k ascending: acc = fmaf(a[i,k], b[k,j], acc).
 * An IEEE fused multiply-add rounds the exact a*b + acc once to FP32, which is the rule for FP32
 * operands and, since FP16 / BF16 values widen to FP32 exactly, for those too (a BF16 product
 * may leave FP32's range, so a separate FP32 multiply would round twice; fma does not).  The
 * chain of one element does not depend on how the M x N outputs are blocked or vectorized, so
 * a register-blocked kernel that walks K in order for every output is the rule itself.
 *
 * NaN payloads are the one thing an FMA instruction chooses by operand position rather than
 * by the rule; the Python caller (backend/numerics.py) recomputes every NaN output with the
 * reference chain, so this file never has to agree on payloads.
 *
 * Built at install time as `backend._mad` (setup.py, optional: without a C compiler the
 * NumPy paths in numerics.py run instead).  Buffers come through the buffer protocol, so the
 * build needs no NumPy headers.  Flags: the kernel must never be compiled with -ffast-math
 * or flush-to-zero (subnormals are data here); -ffp-contract does not matter, every
 * multiply-add is already an explicit fma.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Output block of the vector kernel: MR rows x NR columns held in registers. */
#define MR 6
#define NR 16

static void mad_f32_scalar(const float *a, const float *b, float *acc, Py_ssize_t m, Py_ssize_t k,
                           Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < m; ++i) {
        float *row = acc + i * n;
        for (Py_ssize_t kk = 0; kk < k; ++kk) {
            const float x = a[i * k + kk];
            const float *brow = b + kk * n;
            for (Py_ssize_t j = 0; j < n; ++j) row[j] = fmaf(x, brow[j], row[j]);
        }
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_AVX2_KERNEL 1

/* One MR x NR block: accumulators in 12 ymm registers, B's K x NR panel packed contiguously,
 * k ascending.  `rows` <= MR valid rows; the caller handles partial column panels by packing
 * zeros and copying the valid columns back (padding columns are computed and discarded). */
__attribute__((target("avx2,fma"))) static void block_avx2(const float *a, Py_ssize_t lda, const float *panel,
                                                           float *c, Py_ssize_t ldc, Py_ssize_t rows,
                                                           Py_ssize_t k) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#define LOAD_ROW(r, lo, hi)                            \
    if (rows > r) {                                    \
        lo = _mm256_loadu_ps(c + (r) * ldc);           \
        hi = _mm256_loadu_ps(c + (r) * ldc + 8);       \
    }
    LOAD_ROW(0, c00, c01) LOAD_ROW(1, c10, c11) LOAD_ROW(2, c20, c21)
    LOAD_ROW(3, c30, c31) LOAD_ROW(4, c40, c41) LOAD_ROW(5, c50, c51)
#undef LOAD_ROW
    /* Rows past `rows` read row 0 of A (any finite or non-finite value is fine: those
     * accumulators are never stored). */
    const float *a0 = a, *a1 = rows > 1 ? a + lda : a, *a2 = rows > 2 ? a + 2 * lda : a;
    const float *a3 = rows > 3 ? a + 3 * lda : a, *a4 = rows > 4 ? a + 4 * lda : a;
    const float *a5 = rows > 5 ? a + 5 * lda : a;
    for (Py_ssize_t kk = 0; kk < k; ++kk) {
        const __m256 b0 = _mm256_loadu_ps(panel + kk * NR);
        const __m256 b1 = _mm256_loadu_ps(panel + kk * NR + 8);
        __m256 x;
        x = _mm256_broadcast_ss(a0 + kk); c00 = _mm256_fmadd_ps(x, b0, c00); c01 = _mm256_fmadd_ps(x, b1, c01);
        x = _mm256_broadcast_ss(a1 + kk); c10 = _mm256_fmadd_ps(x, b0, c10); c11 = _mm256_fmadd_ps(x, b1, c11);
        x = _mm256_broadcast_ss(a2 + kk); c20 = _mm256_fmadd_ps(x, b0, c20); c21 = _mm256_fmadd_ps(x, b1, c21);
        x = _mm256_broadcast_ss(a3 + kk); c30 = _mm256_fmadd_ps(x, b0, c30); c31 = _mm256_fmadd_ps(x, b1, c31);
        x = _mm256_broadcast_ss(a4 + kk); c40 = _mm256_fmadd_ps(x, b0, c40); c41 = _mm256_fmadd_ps(x, b1, c41);
        x = _mm256_broadcast_ss(a5 + kk); c50 = _mm256_fmadd_ps(x, b0, c50); c51 = _mm256_fmadd_ps(x, b1, c51);
    }
#define STORE_ROW(r, lo, hi)                           \
    if (rows > r) {                                    \
        _mm256_storeu_ps(c + (r) * ldc, lo);           \
        _mm256_storeu_ps(c + (r) * ldc + 8, hi);       \
    }
    STORE_ROW(0, c00, c01) STORE_ROW(1, c10, c11) STORE_ROW(2, c20, c21)
    STORE_ROW(3, c30, c31) STORE_ROW(4, c40, c41) STORE_ROW(5, c50, c51)
#undef STORE_ROW
}

/* Returns 0 on success, -1 if the panel buffer could not be allocated. */
static int mad_f32_avx2(const float *a, const float *b, float *acc, Py_ssize_t m, Py_ssize_t k, Py_ssize_t n) {
    float *panel = (float *)PyMem_RawMalloc(sizeof(float) * (size_t)(k > 0 ? k : 1) * NR);
    float *edge = (float *)PyMem_RawMalloc(sizeof(float) * MR * NR);
    if (panel == NULL || edge == NULL) {
        PyMem_RawFree(panel);
        PyMem_RawFree(edge);
        return -1;
    }
    for (Py_ssize_t j0 = 0; j0 < n; j0 += NR) {
        const Py_ssize_t cols = n - j0 < NR ? n - j0 : NR;
        for (Py_ssize_t kk = 0; kk < k; ++kk) {
            memcpy(panel + kk * NR, b + kk * n + j0, sizeof(float) * (size_t)cols);
            for (Py_ssize_t j = cols; j < NR; ++j) panel[kk * NR + j] = 0.0f;
        }
        for (Py_ssize_t i0 = 0; i0 < m; i0 += MR) {
            const Py_ssize_t rows = m - i0 < MR ? m - i0 : MR;
            if (cols == NR) {
                block_avx2(a + i0 * k, k, panel, acc + i0 * n + j0, n, rows, k);
            } else {
                for (Py_ssize_t r = 0; r < rows; ++r) {
                    memcpy(edge + r * NR, acc + (i0 + r) * n + j0, sizeof(float) * (size_t)cols);
                    for (Py_ssize_t j = cols; j < NR; ++j) edge[r * NR + j] = 0.0f;
                }
                block_avx2(a + i0 * k, k, panel, edge, NR, rows, k);
                for (Py_ssize_t r = 0; r < rows; ++r)
                    memcpy(acc + (i0 + r) * n + j0, edge + r * NR, sizeof(float) * (size_t)cols);
            }
        }
    }
    PyMem_RawFree(panel);
    PyMem_RawFree(edge);
    return 0;
}

static int have_avx2_fma(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return cached;
}
#endif

/* INT8 x INT8 -> INT32: two's-complement wrap, computed in uint32 (wrapping addition is
 * associative, but the loop keeps k ascending anyway). */
static void mad_i8(const int8_t *a, const int8_t *b, int32_t *acc, Py_ssize_t m, Py_ssize_t k, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < m; ++i) {
        uint32_t *row = (uint32_t *)(acc + i * n);
        for (Py_ssize_t kk = 0; kk < k; ++kk) {
            const int32_t x = a[i * k + kk];
            const int8_t *brow = b + kk * n;
            for (Py_ssize_t j = 0; j < n; ++j) row[j] += (uint32_t)(x * (int32_t)brow[j]);
        }
    }
}

/* Argument checking: C-contiguous buffers of the expected item format and sizes. */
static int get_buffer(PyObject *obj, Py_buffer *view, int writable, char format, Py_ssize_t items,
                      const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *fmt = view->format == NULL ? "B" : view->format;
    if (fmt[0] == '<' || fmt[0] == '=' || fmt[0] == '@') ++fmt;
    if (fmt[0] != format || fmt[1] != '\0' || view->len != items * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous items of format '%c'", what, items, format);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *mad(PyObject *self, PyObject *args, int integer) {
    PyObject *a_obj, *b_obj, *acc_obj;
    Py_ssize_t m, k, n;
    if (!PyArg_ParseTuple(args, "OOOnnn", &a_obj, &b_obj, &acc_obj, &m, &k, &n)) return NULL;
    if (m < 0 || k < 0 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "negative extent");
        return NULL;
    }
    Py_buffer a, b, acc;
    const char in_fmt = integer ? 'b' : 'f', acc_fmt = integer ? 'i' : 'f';
    if (get_buffer(a_obj, &a, 0, in_fmt, m * k, "a") < 0) return NULL;
    if (get_buffer(b_obj, &b, 0, in_fmt, k * n, "b") < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    if (get_buffer(acc_obj, &acc, 1, acc_fmt, m * n, "acc") < 0) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&b);
        return NULL;
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    if (integer) {
        mad_i8((const int8_t *)a.buf, (const int8_t *)b.buf, (int32_t *)acc.buf, m, k, n);
    } else {
#ifdef HAVE_AVX2_KERNEL
        if (have_avx2_fma())
            failed = mad_f32_avx2((const float *)a.buf, (const float *)b.buf, (float *)acc.buf, m, k, n);
        else
#endif
            mad_f32_scalar((const float *)a.buf, (const float *)b.buf, (float *)acc.buf, m, k, n);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    PyBuffer_Release(&acc);
    if (failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *mad_f32(PyObject *self, PyObject *args) { return mad(self, args, 0); }
static PyObject *mad_int8(PyObject *self, PyObject *args) { return mad(self, args, 1); }

static PyObject *kernel_name(PyObject *self, PyObject *unused) {
#ifdef HAVE_AVX2_KERNEL
    if (have_avx2_fma()) return PyUnicode_FromString("avx2-fma");
#endif
    return PyUnicode_FromString("scalar-fmaf");
}

static PyMethodDef methods[] = {
    {"mad_f32", mad_f32, METH_VARARGS,
     "mad_f32(a, b, acc, m, k, n): acc[i,j] = fma chain over k ascending (float32, C order, in place)"},
    {"mad_int8", mad_int8, METH_VARARGS,
     "mad_int8(a, b, acc, m, k, n): acc[i,j] += a[i,k]*b[k,j], int8 inputs, int32 wrap (in place)"},
    {"kernel", kernel_name, METH_NOARGS, "the float kernel this CPU runs"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "backend._mad", NULL, -1, methods};

PyMODINIT_FUNC PyInit__mad(void) { return PyModule_Create(&module); }
