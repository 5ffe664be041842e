# Scalar casts to and from the unsigned integers (pl.cast(scalar, pl.UINTn)), each conversion
# scalar_conversion_chain spells: uitofp (unsigned -> float), fptoui (float -> unsigned,
# saturating), extui (widening an unsigned value, and an unsigned one below 64 bits to INDEX through
# i64), extsi (a signed value widened to an unsigned type), trunci (narrowing, either
# signedness), bitcast (signed <-> unsigned of one width, which PTOAS folds away), index_cast
# (INDEX <-> a 64-bit or narrower unsigned integer), unsigned arithmetic on a cast (divui,
# remui), and a cast result scaling a tile. Every result is written to a GM element of its own
# type (pl.tensor.write), so a test reads its bits (tests/test_unsigned_scalar_casts.py).
import pypto.language as pl


@pl.program
class UnsignedScalarCasts:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Scalar[pl.UINT32], b: pl.Scalar[pl.INT32], f: pl.Scalar[pl.FP32],
               w: pl.Scalar[pl.UINT64], h: pl.Scalar[pl.UINT8], x: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               u8: pl.InOut[pl.Tensor[[1, 8], pl.UINT8]], u16: pl.InOut[pl.Tensor[[1, 8], pl.UINT16]],
               u32: pl.InOut[pl.Tensor[[1, 8], pl.UINT32]], u64: pl.InOut[pl.Tensor[[1, 8], pl.UINT64]],
               i32: pl.InOut[pl.Tensor[[1, 8], pl.INT32]], i64: pl.InOut[pl.Tensor[[1, 8], pl.INT64]],
               f32: pl.InOut[pl.Tensor[[1, 8], pl.FP32]], f16: pl.InOut[pl.Tensor[[1, 8], pl.FP16]]
               ) -> pl.Tensor[[16, 32], pl.FP32]:
        pl.tensor.write(u8, [0, 0], pl.cast(a, pl.UINT8))           # trunci, unsigned -> unsigned
        pl.tensor.write(u8, [0, 1], pl.cast(f, pl.UINT8))           # fptoui, saturating
        pl.tensor.write(u8, [0, 2], pl.cast(b, pl.UINT8))           # trunci, signed -> unsigned
        pl.tensor.write(u16, [0, 0], pl.cast(h, pl.UINT16))         # extui
        pl.tensor.write(u16, [0, 1], pl.cast(b, pl.UINT16))         # trunci
        pl.tensor.write(u16, [0, 2], pl.cast(f, pl.UINT16))         # fptoui
        pl.tensor.write(u32, [0, 0], pl.cast(b, pl.UINT32))         # bitcast (same width)
        pl.tensor.write(u32, [0, 1], pl.cast(f, pl.UINT32))         # fptoui
        pl.tensor.write(u32, [0, 2], pl.cast(w, pl.UINT32))         # trunci
        q: pl.Scalar[pl.UINT32] = pl.cast(b, pl.UINT32) // 3        # divui on the bitcast
        r: pl.Scalar[pl.UINT32] = pl.cast(b, pl.UINT32) % 5         # remui
        pl.tensor.write(u32, [0, 3], q)
        pl.tensor.write(u32, [0, 4], r)
        pl.tensor.write(u64, [0, 0], pl.cast(a, pl.UINT64))         # extui
        pl.tensor.write(u64, [0, 1], pl.cast(b, pl.UINT64))         # extsi into an unsigned type
        pl.tensor.write(u64, [0, 2], pl.cast(f, pl.UINT64))         # fptoui
        n: pl.Scalar[pl.INDEX] = pl.cast(b, pl.INDEX)
        pl.tensor.write(u64, [0, 3], pl.cast(n, pl.UINT64))         # index_cast, INDEX -> UINT64
        pl.tensor.write(i32, [0, 0], pl.cast(a, pl.INT32))          # bitcast (same width)
        pl.tensor.write(i32, [0, 1], pl.cast(w, pl.INT32))          # trunci
        pl.tensor.write(i32, [0, 2], pl.cast(h, pl.INT32))          # extui
        pl.tensor.write(i64, [0, 0], pl.cast(a, pl.INT64))          # extui
        pl.tensor.write(i64, [0, 1], pl.cast(w, pl.INT64))          # bitcast (same width)
        wi: pl.Scalar[pl.INDEX] = pl.cast(w, pl.INDEX)              # index_cast, UINT64 -> INDEX
        ai: pl.Scalar[pl.INDEX] = pl.cast(a, pl.INDEX)              # extui to i64, index_cast
        pl.tensor.write(i64, [0, 2], pl.cast(wi, pl.INT64))
        pl.tensor.write(i64, [0, 3], pl.cast(ai, pl.INT64))
        pl.tensor.write(f32, [0, 0], pl.cast(a, pl.FP32))           # uitofp
        pl.tensor.write(f32, [0, 1], pl.cast(w, pl.FP32))           # uitofp from 64 bits
        pl.tensor.write(f32, [0, 2], pl.cast(h, pl.FP32))           # uitofp from 8 bits
        pl.tensor.write(f16, [0, 0], pl.cast(a, pl.FP16))           # uitofp, overflowing to inf
        pl.tensor.write(f16, [0, 1], pl.cast(h, pl.FP16))
        t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        scaled: pl.Tile[[16, 32], pl.FP32] = pl.mul(t, pl.cast(a, pl.FP32))
        out = pl.store(scaled, [0, 0], out)
        return out
