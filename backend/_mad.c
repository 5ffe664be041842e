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

/* Exact widenings to FP32 (every FP16 / BF16 value is an FP32 value).  NaN payloads may come
 * out differently from NumPy's conversion; NaN outputs are recomputed by the caller anyway. */
static float half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu, bits;
    if (exponent == 0x1Fu) {
        bits = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else { /* subnormal: normalize */
        exponent = 113u;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static float bf16_to_float(uint16_t h) {
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

enum { KIND_F32 = 0, KIND_F16 = 1, KIND_BF16 = 2 };

static void widen(const void *src, float *dst, Py_ssize_t count, int kind) {
    const uint16_t *h = (const uint16_t *)src;
    if (kind == KIND_F16)
        for (Py_ssize_t i = 0; i < count; ++i) dst[i] = half_to_float(h[i]);
    else
        for (Py_ssize_t i = 0; i < count; ++i) dst[i] = bf16_to_float(h[i]);
}

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

/* The same MR x NR512 block with 16-lane zmm registers (NR512 = 2 x 16 columns): every
 * output element still runs its own fma chain over k ascending, only more of them at once. */
#define NR512 32
__attribute__((target("avx512f"))) static void block_avx512(const float *a, Py_ssize_t lda, const float *panel,
                                                            float *c, Py_ssize_t ldc, Py_ssize_t rows,
                                                            Py_ssize_t k) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#define LOAD_ROW(r, lo, hi)                            \
    if (rows > r) {                                    \
        lo = _mm512_loadu_ps(c + (r) * ldc);           \
        hi = _mm512_loadu_ps(c + (r) * ldc + 16);      \
    }
    LOAD_ROW(0, c00, c01) LOAD_ROW(1, c10, c11) LOAD_ROW(2, c20, c21)
    LOAD_ROW(3, c30, c31) LOAD_ROW(4, c40, c41) LOAD_ROW(5, c50, c51)
#undef LOAD_ROW
    const float *a0 = a, *a1 = rows > 1 ? a + lda : a, *a2 = rows > 2 ? a + 2 * lda : a;
    const float *a3 = rows > 3 ? a + 3 * lda : a, *a4 = rows > 4 ? a + 4 * lda : a;
    const float *a5 = rows > 5 ? a + 5 * lda : a;
    for (Py_ssize_t kk = 0; kk < k; ++kk) {
        const __m512 b0 = _mm512_loadu_ps(panel + kk * NR512);
        const __m512 b1 = _mm512_loadu_ps(panel + kk * NR512 + 16);
        __m512 x;
        x = _mm512_set1_ps(a0[kk]); c00 = _mm512_fmadd_ps(x, b0, c00); c01 = _mm512_fmadd_ps(x, b1, c01);
        x = _mm512_set1_ps(a1[kk]); c10 = _mm512_fmadd_ps(x, b0, c10); c11 = _mm512_fmadd_ps(x, b1, c11);
        x = _mm512_set1_ps(a2[kk]); c20 = _mm512_fmadd_ps(x, b0, c20); c21 = _mm512_fmadd_ps(x, b1, c21);
        x = _mm512_set1_ps(a3[kk]); c30 = _mm512_fmadd_ps(x, b0, c30); c31 = _mm512_fmadd_ps(x, b1, c31);
        x = _mm512_set1_ps(a4[kk]); c40 = _mm512_fmadd_ps(x, b0, c40); c41 = _mm512_fmadd_ps(x, b1, c41);
        x = _mm512_set1_ps(a5[kk]); c50 = _mm512_fmadd_ps(x, b0, c50); c51 = _mm512_fmadd_ps(x, b1, c51);
    }
#define STORE_ROW(r, lo, hi)                           \
    if (rows > r) {                                    \
        _mm512_storeu_ps(c + (r) * ldc, lo);           \
        _mm512_storeu_ps(c + (r) * ldc + 16, hi);      \
    }
    STORE_ROW(0, c00, c01) STORE_ROW(1, c10, c11) STORE_ROW(2, c20, c21)
    STORE_ROW(3, c30, c31) STORE_ROW(4, c40, c41) STORE_ROW(5, c50, c51)
#undef STORE_ROW
}

typedef void (*block_kernel)(const float *a, Py_ssize_t lda, const float *panel, float *c, Py_ssize_t ldc,
                             Py_ssize_t rows, Py_ssize_t k);

/* The blocked chain: B packed into K x `nr` column panels (zero padded), `block` run per MR rows
 * of each panel.  Returns 0 on success, -1 if the panel buffer could not be allocated. */
static int mad_f32_blocked(const float *a, const float *b, float *acc, Py_ssize_t m, Py_ssize_t k, Py_ssize_t n,
                           Py_ssize_t nr, block_kernel block) {
    float *panel = (float *)PyMem_RawMalloc(sizeof(float) * (size_t)(k > 0 ? k : 1) * (size_t)nr);
    float *edge = (float *)PyMem_RawMalloc(sizeof(float) * MR * (size_t)nr);
    if (panel == NULL || edge == NULL) {
        PyMem_RawFree(panel);
        PyMem_RawFree(edge);
        return -1;
    }
    for (Py_ssize_t j0 = 0; j0 < n; j0 += nr) {
        const Py_ssize_t cols = n - j0 < nr ? n - j0 : nr;
        for (Py_ssize_t kk = 0; kk < k; ++kk) {
            memcpy(panel + kk * nr, b + kk * n + j0, sizeof(float) * (size_t)cols);
            for (Py_ssize_t j = cols; j < nr; ++j) panel[kk * nr + j] = 0.0f;
        }
        for (Py_ssize_t i0 = 0; i0 < m; i0 += MR) {
            const Py_ssize_t rows = m - i0 < MR ? m - i0 : MR;
            if (cols == nr) {
                block(a + i0 * k, k, panel, acc + i0 * n + j0, n, rows, k);
            } else {
                for (Py_ssize_t r = 0; r < rows; ++r) {
                    memcpy(edge + r * nr, acc + (i0 + r) * n + j0, sizeof(float) * (size_t)cols);
                    for (Py_ssize_t j = cols; j < nr; ++j) edge[r * nr + j] = 0.0f;
                }
                block(a + i0 * k, k, panel, edge, nr, rows, k);
                for (Py_ssize_t r = 0; r < rows; ++r)
                    memcpy(acc + (i0 + r) * n + j0, edge + r * nr, sizeof(float) * (size_t)cols);
            }
        }
    }
    PyMem_RawFree(panel);
    PyMem_RawFree(edge);
    return 0;
}

__attribute__((target("avx2,f16c"))) static void widen_f16_f16c(const uint16_t *src, float *dst, Py_ssize_t count) {
    Py_ssize_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < count; ++i) dst[i] = half_to_float(src[i]);
}

static int have_f16c(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    }
    return cached;
}

static int have_avx512f(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512f");
    }
    return cached;
}

static int have_avx2_fma(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return cached;
}

/* The float kernels, narrowest first; `use_kernel` (tests) caps the choice at one of them. */
enum { KERNEL_SCALAR = 0, KERNEL_AVX2 = 1, KERNEL_AVX512 = 2 };
static const char *const KERNEL_NAMES[] = {"scalar-fmaf", "avx2-fma", "avx512f"};
static int kernel_cap = KERNEL_AVX512;

static int active_kernel(void) {
    if (kernel_cap >= KERNEL_AVX512 && have_avx512f()) return KERNEL_AVX512;
    if (kernel_cap >= KERNEL_AVX2 && have_avx2_fma()) return KERNEL_AVX2;
    return KERNEL_SCALAR;
}

/* The widest vector chain this CPU runs (0 when none: the caller runs the scalar one);
 * `failed` is set when its buffers could not be allocated. */
static int vector_chain(const float *a, const float *b, float *acc, Py_ssize_t m, Py_ssize_t k, Py_ssize_t n,
                        int *failed) {
    const int kernel = active_kernel();
    if (kernel == KERNEL_AVX512)
        *failed = mad_f32_blocked(a, b, acc, m, k, n, NR512, block_avx512);
    else if (kernel == KERNEL_AVX2)
        *failed = mad_f32_blocked(a, b, acc, m, k, n, NR, block_avx2);
    else
        return 0;
    return 1;
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
    int kind = KIND_F32;
    if (!PyArg_ParseTuple(args, "OOOnnn|i", &a_obj, &b_obj, &acc_obj, &m, &k, &n, &kind)) return NULL;
    if (m < 0 || k < 0 || n < 0 || kind < KIND_F32 || kind > KIND_BF16) {
        PyErr_SetString(PyExc_ValueError, "negative extent or unknown operand kind");
        return NULL;
    }
    Py_buffer a, b, acc;
    const char in_fmt = integer ? 'b' : (kind == KIND_F32 ? 'f' : 'H'), acc_fmt = integer ? 'i' : 'f';
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
    Py_ssize_t nans = 0;
    Py_BEGIN_ALLOW_THREADS
    if (integer) {
        mad_i8((const int8_t *)a.buf, (const int8_t *)b.buf, (int32_t *)acc.buf, m, k, n);
    } else {
        const float *left = (const float *)a.buf, *right = (const float *)b.buf;
        float *wide = NULL;
        if (kind != KIND_F32) {
            wide = (float *)PyMem_RawMalloc(sizeof(float) * (size_t)(m * k + k * n + 1));
            if (wide == NULL) {
                failed = 1;
            } else {
#ifdef HAVE_AVX2_KERNEL
                if (kind == KIND_F16 && have_f16c()) {
                    widen_f16_f16c((const uint16_t *)a.buf, wide, m * k);
                    widen_f16_f16c((const uint16_t *)b.buf, wide + m * k, k * n);
                } else
#endif
                {
                    widen(a.buf, wide, m * k, kind);
                    widen(b.buf, wide + m * k, k * n, kind);
                }
                left = wide;
                right = wide + m * k;
            }
        }
        if (!failed) {
#ifdef HAVE_AVX2_KERNEL
            if (!vector_chain(left, right, (float *)acc.buf, m, k, n, &failed))
#endif
                mad_f32_scalar(left, right, (float *)acc.buf, m, k, n);
        }
        PyMem_RawFree(wide);
        const float *out = (const float *)acc.buf;
        for (Py_ssize_t i = 0; i < m * n; ++i) nans += isnan(out[i]) ? 1 : 0;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    PyBuffer_Release(&acc);
    if (failed) return PyErr_NoMemory();
    return PyLong_FromSsize_t(nans);
}


/* -- strided block moves for the simulator's tile windows ---------------------------------------
 *
 * A tile window is a 4-D strided block of a memory space's bytes ([box rows, rows in a box,
 * box columns, columns in a box], or [1, h, 1, w]) whose innermost run is contiguous.  NumPy
 * copies such a block with a per-run loop overhead that dominates at 16-element runs; these
 * copy whole runs with memcpy.  All offsets and strides are in bytes and were bounds-checked by
 * the caller (backend/sim/machine.py); the functions check them against the buffers again. */

typedef struct {
    Py_ssize_t shape[4];
    Py_ssize_t strides[4];
    Py_ssize_t base;
    Py_ssize_t run; /* bytes of the innermost contiguous run (shape[3] * item) */
} Block;

static int parse_block(PyObject *shape, PyObject *strides, Py_ssize_t base, Py_ssize_t item, Block *block,
                       Py_ssize_t buffer_len) {
    if (!PyArg_ParseTuple(shape, "nnnn", &block->shape[0], &block->shape[1], &block->shape[2], &block->shape[3]))
        return -1;
    if (!PyArg_ParseTuple(strides, "nnnn", &block->strides[0], &block->strides[1], &block->strides[2],
                          &block->strides[3]))
        return -1;
    block->base = base;
    Py_ssize_t last = base;
    for (int axis = 0; axis < 4; ++axis) {
        if (block->shape[axis] <= 0) {
            block->run = 0;
            return 0;
        }
        if (block->strides[axis] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative stride");
            return -1;
        }
        last += (block->shape[axis] - 1) * block->strides[axis];
    }
    if (block->strides[3] != item) {
        PyErr_SetString(PyExc_ValueError, "the innermost axis must be contiguous");
        return -1;
    }
    block->run = block->shape[3] * item;
    if (base < 0 || last + item > buffer_len) {
        PyErr_SetString(PyExc_IndexError, "block outside the buffer");
        return -1;
    }
    return 0;
}

/* Whether the block's bytes are exactly [base, base + size): its axes, ordered by stride, each
 * step over exactly the bytes of the axes inside it.  Then written flags are one range. */
static int dense_block(const Block *block, Py_ssize_t *size) {
    Py_ssize_t extent[4], stride[4];
    int used = 0;
    for (int axis = 0; axis < 3; ++axis) {
        if (block->shape[axis] > 1) {
            extent[used] = block->shape[axis];
            stride[used] = block->strides[axis];
            ++used;
        }
    }
    /* insertion sort by stride */
    for (int i = 1; i < used; ++i)
        for (int j = i; j > 0 && stride[j - 1] > stride[j]; --j) {
            Py_ssize_t t = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = t;
            t = extent[j]; extent[j] = extent[j - 1]; extent[j - 1] = t;
        }
    Py_ssize_t covered = block->run;
    for (int i = 0; i < used; ++i) {
        if (stride[i] != covered) return 0;
        covered *= extent[i];
    }
    *size = covered;
    return 1;
}

/* Copy one run; the common run lengths (16, 32, 64 bytes: a box row) as fixed-size copies. */
static inline void copy_run(char *dst, const char *src, Py_ssize_t run) {
    switch (run) {
    case 16: memcpy(dst, src, 16); break;
    case 32: memcpy(dst, src, 32); break;
    case 64: memcpy(dst, src, 64); break;
    default: memmove(dst, src, (size_t)run);
    }
}

#define FOR_RUNS(block, offset)                                                              \
    for (Py_ssize_t i0 = 0; i0 < (block).shape[0]; ++i0)                                     \
        for (Py_ssize_t i1 = 0; i1 < (block).shape[1]; ++i1)                                 \
            for (Py_ssize_t i2 = 0; i2 < (block).shape[2]; ++i2)                             \
                for (Py_ssize_t offset = (block).base + i0 * (block).strides[0] +            \
                                         i1 * (block).strides[1] + i2 * (block).strides[2],  \
                                once = 1;                                                    \
                     once; once = 0)

/* gather(memory, base, shape, strides, item, out): out (C order) = the block's elements. */
static PyObject *gather(PyObject *self, PyObject *args) {
    PyObject *mem_obj, *out_obj, *shape, *strides;
    Py_ssize_t base, item;
    if (!PyArg_ParseTuple(args, "OnO!O!nO", &mem_obj, &base, &PyTuple_Type, &shape, &PyTuple_Type, &strides, &item,
                          &out_obj))
        return NULL;
    Py_buffer mem, out;
    if (PyObject_GetBuffer(mem_obj, &mem, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&mem);
        return NULL;
    }
    Block block;
    int ok = parse_block(shape, strides, base, item, &block, mem.len) == 0;
    if (ok && block.run * block.shape[0] * block.shape[1] * block.shape[2] != out.len) {
        PyErr_SetString(PyExc_ValueError, "output size differs from the block");
        ok = 0;
    }
    if (ok && block.run) {
        char *dst = (char *)out.buf;
        const char *src = (const char *)mem.buf;
        FOR_RUNS(block, offset) {
            copy_run(dst, src + offset, block.run);
            dst += block.run;
        }
    }
    PyBuffer_Release(&mem);
    PyBuffer_Release(&out);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* scatter(memory, base, shape, strides, item, values, flags): the block's elements = values
 * (C order); flags (same length as memory, one byte per byte, or None) get 1 over them. */
static PyObject *scatter(PyObject *self, PyObject *args) {
    PyObject *mem_obj, *values_obj, *flags_obj, *shape, *strides;
    Py_ssize_t base, item;
    if (!PyArg_ParseTuple(args, "OnO!O!nOO", &mem_obj, &base, &PyTuple_Type, &shape, &PyTuple_Type, &strides, &item,
                          &values_obj, &flags_obj))
        return NULL;
    Py_buffer mem, values, flags;
    if (PyObject_GetBuffer(mem_obj, &mem, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(values_obj, &values, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&mem);
        return NULL;
    }
    int have_flags = flags_obj != Py_None;
    if (have_flags && PyObject_GetBuffer(flags_obj, &flags, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&mem);
        PyBuffer_Release(&values);
        return NULL;
    }
    Block block;
    int ok = parse_block(shape, strides, base, item, &block, mem.len) == 0;
    if (ok && block.run * block.shape[0] * block.shape[1] * block.shape[2] != values.len) {
        PyErr_SetString(PyExc_ValueError, "values size differs from the block");
        ok = 0;
    }
    if (ok && have_flags && flags.len != mem.len) {
        PyErr_SetString(PyExc_ValueError, "flags and memory differ in length");
        ok = 0;
    }
    if (ok && block.run) {
        const char *src = (const char *)values.buf;
        char *dst = (char *)mem.buf;
        char *marks = have_flags ? (char *)flags.buf : NULL;
        Py_ssize_t size = 0;
        if (marks && dense_block(&block, &size)) {
            memset(marks + block.base, 1, (size_t)size);
            marks = NULL;
        }
        /* values may overlap the block (a view of the same memory): then copy through a buffer */
        const char *mem_lo = (const char *)mem.buf, *mem_hi = mem_lo + mem.len;
        char *staged = NULL;
        if (src < mem_hi && src + values.len > mem_lo) {
            staged = (char *)PyMem_RawMalloc((size_t)values.len);
            if (staged == NULL) {
                PyErr_NoMemory();
                ok = 0;
            } else {
                memcpy(staged, src, (size_t)values.len);
                src = staged;
            }
        }
        if (ok) {
            FOR_RUNS(block, offset) {
                copy_run(dst + offset, src, block.run);
                if (marks) memset(marks + offset, 1, (size_t)block.run);
                src += block.run;
            }
        }
        PyMem_RawFree(staged);
    }
    PyBuffer_Release(&mem);
    PyBuffer_Release(&values);
    if (have_flags) PyBuffer_Release(&flags);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* all_written(flags, base, shape, strides, item): whether every byte of the block is 1. */
static PyObject *all_written(PyObject *self, PyObject *args) {
    PyObject *flags_obj, *shape, *strides;
    Py_ssize_t base, item;
    if (!PyArg_ParseTuple(args, "OnO!O!n", &flags_obj, &base, &PyTuple_Type, &shape, &PyTuple_Type, &strides, &item))
        return NULL;
    Py_buffer flags;
    if (PyObject_GetBuffer(flags_obj, &flags, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    Block block;
    int ok = parse_block(shape, strides, base, item, &block, flags.len) == 0;
    int all = 1;
    if (ok && block.run) {
        static unsigned char ones[4096];
        if (ones[0] == 0) memset(ones, 1, sizeof ones);
        const unsigned char *marks = (const unsigned char *)flags.buf;
        Py_ssize_t size = 0;
        if (dense_block(&block, &size)) {
            for (Py_ssize_t at = 0; at < size; at += (Py_ssize_t)sizeof ones) {
                Py_ssize_t part = size - at < (Py_ssize_t)sizeof ones ? size - at : (Py_ssize_t)sizeof ones;
                if (memcmp(marks + block.base + at, ones, (size_t)part) != 0) {
                    all = 0;
                    break;
                }
            }
            goto done;
        }
        FOR_RUNS(block, offset) {
            const unsigned char *run = marks + offset;
            for (Py_ssize_t done_bytes = 0; done_bytes < block.run; done_bytes += (Py_ssize_t)sizeof ones) {
                Py_ssize_t part = block.run - done_bytes;
                if (part > (Py_ssize_t)sizeof ones) part = (Py_ssize_t)sizeof ones;
                if (memcmp(run + done_bytes, ones, (size_t)part) != 0) {
                    all = 0;
                    goto done;
                }
            }
        }
    }
done:
    PyBuffer_Release(&flags);
    if (!ok) return NULL;
    return PyBool_FromLong(all);
}

/* move_block(src, src_base, src_shape4, src_strides4, dst, dst_base, dst_shape4, dst_strides4,
 *            item, dst_flags): copy the logical [h, w] window of one block into another block
 * of the same logical extent but its own layout (h = shape[0] * shape[1], w = shape[2] *
 * shape[3]; element (r, c) sits at base + (r / IR) s0 + (r % IR) s1 + (c / IC) s2 + (c % IC) s3
 * with IR = shape[1], IC = shape[3]), marking the destination's written flags.  Returns False
 * without copying when the two byte ranges may overlap (the caller then goes through a copy). */
static Py_ssize_t block_span(const Block *b) {
    Py_ssize_t last = 0;
    for (int axis = 0; axis < 4; ++axis) last += (b->shape[axis] - 1) * b->strides[axis];
    return last + b->strides[3];
}

/* Whether two blocks address their elements alike (same shape and strides) and tile their
 * byte ranges exactly (`dense_block`, of `bytes` = elements x item): then one memcpy is the
 * block move. */
static int same_dense_blocks(const Block *a, const Block *b, Py_ssize_t bytes) {
    for (int d = 0; d < 4; ++d)
        if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d])) return 0;
    Py_ssize_t size = 0;
    return dense_block(a, &size) && size == bytes;
}

static PyObject *move_block(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj, *flags_obj, *src_shape, *src_strides, *dst_shape, *dst_strides;
    Py_ssize_t src_base, dst_base, item;
    if (!PyArg_ParseTuple(args, "OnO!O!OnO!O!nO", &src_obj, &src_base, &PyTuple_Type, &src_shape, &PyTuple_Type,
                          &src_strides, &dst_obj, &dst_base, &PyTuple_Type, &dst_shape, &PyTuple_Type, &dst_strides,
                          &item, &flags_obj))
        return NULL;
    Py_buffer src, dst, flags;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(dst_obj, &dst, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    const int have_flags = flags_obj != Py_None; /* None: the caller knows the bytes are written */
    if (have_flags && PyObject_GetBuffer(flags_obj, &flags, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        return NULL;
    }
    Block a, b;
    int ok = parse_block(src_shape, src_strides, src_base, item, &a, src.len) == 0 &&
             parse_block(dst_shape, dst_strides, dst_base, item, &b, dst.len) == 0;
    if (ok && have_flags && flags.len != dst.len) {
        PyErr_SetString(PyExc_ValueError, "flags and memory differ in length");
        ok = 0;
    }
    const Py_ssize_t h = a.shape[0] * a.shape[1], w = a.shape[2] * a.shape[3];
    if (ok && (h != b.shape[0] * b.shape[1] || w != b.shape[2] * b.shape[3])) {
        PyErr_SetString(PyExc_ValueError, "the blocks differ in logical extent");
        ok = 0;
    }
    int moved = 0;
    if (ok && a.run && b.run) {
        const char *sbuf = (const char *)src.buf;
        char *dbuf = (char *)dst.buf;
        const int overlap = sbuf + a.base < dbuf + b.base + block_span(&b) && dbuf + b.base < sbuf + a.base + block_span(&a);
        if (!overlap && same_dense_blocks(&a, &b, h * w * item)) {
            /* One layout on both sides, no gaps: the element order is the byte order. */
            memcpy(dbuf + b.base, sbuf + a.base, (size_t)(h * w * item));
            if (have_flags) memset((char *)flags.buf + b.base, 1, (size_t)(h * w * item));
            moved = 1;
        } else if (!overlap) {
            char *marks = have_flags ? (char *)flags.buf : NULL;
            const Py_ssize_t air = a.shape[1], aic = a.shape[3], bir = b.shape[1], bic = b.shape[3];
            /* Row and column coordinates split as (r / IR, r % IR) are carried as counters
             * (no division per run): the runs are short (a box row: 16 - 64 bytes). */
            Py_ssize_t ar0 = 0, ar1 = 0, br0 = 0, br1 = 0;
            for (Py_ssize_t r = 0; r < h; ++r) {
                const Py_ssize_t arow = a.base + ar0 * a.strides[0] + ar1 * a.strides[1];
                const Py_ssize_t brow = b.base + br0 * b.strides[0] + br1 * b.strides[1];
                Py_ssize_t ac0 = 0, ac1 = 0, bc0 = 0, bc1 = 0;
                for (Py_ssize_t c = 0; c < w;) {
                    Py_ssize_t chunk = aic - ac1;
                    const Py_ssize_t room = bic - bc1;
                    if (room < chunk) chunk = room;
                    if (w - c < chunk) chunk = w - c;
                    const Py_ssize_t from = arow + ac0 * a.strides[2] + ac1 * item;
                    const Py_ssize_t to = brow + bc0 * b.strides[2] + bc1 * item;
                    copy_run(dbuf + to, sbuf + from, chunk * item);
                    if (marks) memset(marks + to, 1, (size_t)(chunk * item));
                    c += chunk;
                    ac1 += chunk;
                    if (ac1 == aic) { ac1 = 0; ++ac0; }
                    bc1 += chunk;
                    if (bc1 == bic) { bc1 = 0; ++bc0; }
                }
                if (++ar1 == air) { ar1 = 0; ++ar0; }
                if (++br1 == bir) { br1 = 0; ++br0; }
            }
            moved = 1;
        }
    } else if (ok) {
        moved = 1; /* an empty window */
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    if (have_flags) PyBuffer_Release(&flags);
    if (!ok) return NULL;
    return PyBool_FromLong(moved);
}

static PyObject *mad_f32(PyObject *self, PyObject *args) { return mad(self, args, 0); }
static PyObject *mad_int8(PyObject *self, PyObject *args) { return mad(self, args, 1); }

static PyObject *kernel_name(PyObject *self, PyObject *unused) {
#ifdef HAVE_AVX2_KERNEL
    return PyUnicode_FromString(KERNEL_NAMES[active_kernel()]);
#else
    return PyUnicode_FromString("scalar-fmaf");
#endif
}

/* use_kernel(name) -> the kernel now active: run at most `name` (one of kernels()), so tests
 * compare every kernel this CPU has with the reference chain. */
static PyObject *use_kernel(PyObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
#ifdef HAVE_AVX2_KERNEL
    for (int i = KERNEL_SCALAR; i <= KERNEL_AVX512; ++i)
        if (strcmp(name, KERNEL_NAMES[i]) == 0) {
            kernel_cap = i;
            return kernel_name(self, NULL);
        }
#else
    if (strcmp(name, "scalar-fmaf") == 0) return kernel_name(self, NULL);
#endif
    PyErr_Format(PyExc_ValueError, "unknown kernel %s", name);
    return NULL;
}

/* -- MAD on the tiles themselves --------------------------------------------------------------
 *
 * tmatmul / tmatmul.acc straight from the operands' strided windows (NumPy views of the Left,
 * Right and Acc bytes: 2-D [rows, cols], or 4-D [rows/IR, IR, cols/IC, IC] over the layout's
 * boxes, logical order row-major either way): widen / gather each operand into a row-major
 * buffer, run the chain above, and scatter the result into the destination window -- one call
 * instead of three reads, the chain and a write.  Where an output came out NaN nothing is
 * written and the count is returned: the caller then takes the path that recomputes NaN
 * payloads by the reference chain. */

typedef struct {
    Py_buffer view;
    Py_ssize_t shape[4];
    Py_ssize_t strides[4];
} Window;

static int get_window(PyObject *obj, Window *w, int writable, char format, Py_ssize_t rows, Py_ssize_t cols,
                      const char *what) {
    if (PyObject_GetBuffer(obj, &w->view, PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *fmt = w->view.format == NULL ? "B" : w->view.format;
    if (fmt[0] == '<' || fmt[0] == '=' || fmt[0] == '@') ++fmt;
    int ok = fmt[0] == format && fmt[1] == '\0';
    if (ok && w->view.ndim == 2) {
        w->shape[0] = 1, w->shape[1] = w->view.shape[0], w->shape[2] = 1, w->shape[3] = w->view.shape[1];
        w->strides[0] = 0, w->strides[1] = w->view.strides[0], w->strides[2] = 0, w->strides[3] = w->view.strides[1];
    } else if (ok && w->view.ndim == 4) {
        for (int d = 0; d < 4; ++d) w->shape[d] = w->view.shape[d], w->strides[d] = w->view.strides[d];
    } else {
        ok = 0;
    }
    if (!ok || w->shape[0] * w->shape[1] != rows || w->shape[2] * w->shape[3] != cols) {
        PyErr_Format(PyExc_ValueError, "%s: expected a 2-D or 4-D window of %zd x %zd items of format '%c'", what,
                     rows, cols, format);
        PyBuffer_Release(&w->view);
        return -1;
    }
    return 0;
}

/* The window's elements in logical row-major order, `item` bytes each, into `out` (contiguous
 * inner runs as one memcpy each). */
static void gather_window(const Window *w, Py_ssize_t item, char *out) {
    const char *base = (const char *)w->view.buf;
    const Py_ssize_t step = w->strides[3], count = w->shape[3];
    for (Py_ssize_t i0 = 0; i0 < w->shape[0]; ++i0)
        for (Py_ssize_t i1 = 0; i1 < w->shape[1]; ++i1) {
            const char *row = base + i0 * w->strides[0] + i1 * w->strides[1];
            for (Py_ssize_t i2 = 0; i2 < w->shape[2]; ++i2) {
                const char *run = row + i2 * w->strides[2];
                if (step == item) {
                    copy_run(out, run, count * item); /* a box row: 32 / 64 bytes, copied inline */
                    out += count * item;
                } else if (item == 2) { /* fixed-size copies inline (a Zn window's step is a box row) */
                    for (Py_ssize_t i3 = 0; i3 < count; ++i3, out += 2) memcpy(out, run + i3 * step, 2);
                } else if (item == 4) {
                    for (Py_ssize_t i3 = 0; i3 < count; ++i3, out += 4) memcpy(out, run + i3 * step, 4);
                } else {
                    for (Py_ssize_t i3 = 0; i3 < count; ++i3, out += item) memcpy(out, run + i3 * step, (size_t)item);
                }
            }
        }
}

/* The window's elements in logical row-major order, widened to FP32 (`scratch`: room for the
 * raw 16-bit patterns of FP16 / BF16 windows). */
static void window_to_floats(const Window *w, int kind, float *out, uint16_t *scratch) {
    const Py_ssize_t count = w->shape[0] * w->shape[1] * w->shape[2] * w->shape[3];
    if (kind == KIND_F32) {
        gather_window(w, sizeof(float), (char *)out);
        return;
    }
    gather_window(w, sizeof(uint16_t), (char *)scratch);
#ifdef HAVE_AVX2_KERNEL
    if (kind == KIND_F16 && have_f16c()) {
        widen_f16_f16c(scratch, out, count);
        return;
    }
#endif
    widen(scratch, out, count, kind);
}

static void floats_to_window(const float *values, Window *w) {
    char *base = (char *)w->view.buf;
    const Py_ssize_t step = w->strides[3], count = w->shape[3];
    for (Py_ssize_t i0 = 0; i0 < w->shape[0]; ++i0)
        for (Py_ssize_t i1 = 0; i1 < w->shape[1]; ++i1) {
            char *row = base + i0 * w->strides[0] + i1 * w->strides[1];
            for (Py_ssize_t i2 = 0; i2 < w->shape[2]; ++i2) {
                char *run = row + i2 * w->strides[2];
                if (step == (Py_ssize_t)sizeof(float)) {
                    copy_run(run, (const char *)values, (Py_ssize_t)sizeof(float) * count);
                    values += count;
                } else {
                    for (Py_ssize_t i3 = 0; i3 < count; ++i3) memcpy(run + i3 * step, values++, sizeof(float));
                }
            }
        }
}

/* NaN outputs (x != x exactly for NaN: a compare the compiler vectorizes, unlike isnan()). */
static Py_ssize_t count_nans(const float *values, Py_ssize_t count) {
    Py_ssize_t nans = 0;
    for (Py_ssize_t i = 0; i < count; ++i) nans += values[i] != values[i];
    return nans;
}

static PyObject *mad_tiles(PyObject *self, PyObject *args) {
    PyObject *a_obj, *b_obj, *acc_obj, *dst_obj;
    Py_ssize_t m, k, n;
    int kind;
    if (!PyArg_ParseTuple(args, "OOOOnnni", &a_obj, &b_obj, &acc_obj, &dst_obj, &m, &k, &n, &kind)) return NULL;
    if (m < 0 || k < 0 || n < 0 || kind < KIND_F32 || kind > KIND_BF16) {
        PyErr_SetString(PyExc_ValueError, "negative extent or unknown operand kind");
        return NULL;
    }
    const char in_fmt = kind == KIND_F32 ? 'f' : 'H';
    Window a, b, acc, dst;
    const int has_acc = acc_obj != Py_None;
    if (get_window(a_obj, &a, 0, in_fmt, m, k, "left") < 0) return NULL;
    if (get_window(b_obj, &b, 0, in_fmt, k, n, "right") < 0) goto release_a;
    if (has_acc && get_window(acc_obj, &acc, 0, 'f', m, n, "acc") < 0) goto release_b;
    if (get_window(dst_obj, &dst, 1, 'f', m, n, "dst") < 0) goto release_acc;
    Py_ssize_t nans = 0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    const Py_ssize_t widest = m * k > k * n ? m * k : k * n;
    float *left = (float *)PyMem_RawMalloc(sizeof(float) * (size_t)(m * k + k * n + m * n + 1) +
                                           sizeof(uint16_t) * (size_t)(widest + 1));
    if (left == NULL) {
        failed = 1;
    } else {
        float *right = left + m * k, *out = right + k * n;
        uint16_t *scratch = (uint16_t *)(out + m * n + 1);
        window_to_floats(&a, kind, left, scratch);
        window_to_floats(&b, kind, right, scratch);
        if (has_acc)
            window_to_floats(&acc, KIND_F32, out, scratch);
        else
            memset(out, 0, sizeof(float) * (size_t)(m * n)); /* +0.0 */
#ifdef HAVE_AVX2_KERNEL
        if (!vector_chain(left, right, out, m, k, n, &failed))
#endif
            mad_f32_scalar(left, right, out, m, k, n);
        if (!failed) nans = count_nans(out, m * n);
        if (!failed && nans == 0) floats_to_window(out, &dst);
        PyMem_RawFree(left);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&dst.view);
release_acc:
    if (has_acc) PyBuffer_Release(&acc.view);
release_b:
    PyBuffer_Release(&b.view);
release_a:
    PyBuffer_Release(&a.view);
    if (PyErr_Occurred()) return NULL;
    if (failed) return PyErr_NoMemory();
    return PyLong_FromSsize_t(nans);
}

/* same_bytes(a, b): whether two C-contiguous buffers hold the same bytes (one memcmp). */
static PyObject *same_bytes(PyObject *self, PyObject *args) {
    PyObject *a_obj, *b_obj;
    if (!PyArg_ParseTuple(args, "OO", &a_obj, &b_obj)) return NULL;
    Py_buffer a, b;
    if (PyObject_GetBuffer(a_obj, &a, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(b_obj, &b, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    int same = a.len == b.len && (a.len == 0 || memcmp(a.buf, b.buf, (size_t)a.len) == 0);
    PyBuffer_Release(&b);
    PyBuffer_Release(&a);
    return PyBool_FromLong(same);
}

static PyMethodDef methods[] = {
    {"mad_f32", mad_f32, METH_VARARGS,
     "mad_f32(a, b, acc, m, k, n, kind=0): acc[i,j] = fma chain over k ascending, in place (C order); a, b "
     "float32 (kind 0) or the uint16 bit patterns of FP16 (1) / BF16 (2); returns the number of NaN outputs"},
    {"mad_int8", mad_int8, METH_VARARGS,
     "mad_int8(a, b, acc, m, k, n): acc[i,j] += a[i,k]*b[k,j], int8 inputs, int32 wrap (in place); returns 0"},
    {"mad_tiles", mad_tiles, METH_VARARGS,
     "mad_tiles(left, right, acc_or_None, dst, m, k, n, kind) -> nans: the MAD chain from strided tile windows into "
     "dst (written only when no output is NaN)"},
    {"kernel", kernel_name, METH_NOARGS, "the float kernel this CPU runs"},
    {"use_kernel", use_kernel, METH_VARARGS,
     "use_kernel(name) -> active: cap the float kernel at scalar-fmaf, avx2-fma or avx512f (for tests)"},
    {"gather", gather, METH_VARARGS, "gather(memory, base, shape4, strides4, item, out): copy a strided block out"},
    {"scatter", scatter, METH_VARARGS,
     "scatter(memory, base, shape4, strides4, item, values, flags): copy values into a strided block, mark flags"},
    {"move_block", move_block, METH_VARARGS,
     "move_block(src, base, shape4, strides4, dst, base, shape4, strides4, item, dst_flags): block to block"},
    {"all_written", all_written, METH_VARARGS, "all_written(flags, base, shape4, strides4, item): every byte set"},
    {"same_bytes", same_bytes, METH_VARARGS, "same_bytes(a, b): two C-contiguous buffers hold the same bytes"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "backend._mad", NULL, -1, methods};

PyMODINIT_FUNC PyInit__mad(void) { return PyModule_Create(&module); }
