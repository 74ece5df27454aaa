//! One matrix product, `out = a b` or `out += a b`, through the `gemm` crate
//! (the kernels Burn's CPU backend uses, picked at run time), with the shapes
//! checked before its raw pointers are read: what the direct forward pass and
//! the direct training step share.

use gemm::{Parallelism, gemm};

/// A matrix read from a slice: `rows x cols`, element `(i, j)` at
/// `i * rs + j * cs`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    rs: usize,
    cs: usize,
}

impl<'a> View<'a> {
    /// A row-major `rows x cols` matrix.
    pub(crate) fn rows(data: &'a [f32], rows: usize, cols: usize) -> View<'a> {
        View {
            data,
            rows,
            cols,
            rs: cols,
            cs: 1,
        }
    }

    /// The transpose (no copy).
    pub(crate) fn t(self) -> View<'a> {
        View {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    /// Whether every element lies inside the slice.
    fn fits(&self) -> bool {
        self.rows == 0
            || self.cols == 0
            || (self.rows - 1) * self.rs + (self.cols - 1) * self.cs < self.data.len()
    }
}

/// A row-major destination of `cols` columns, added to or overwritten.
pub(crate) struct Out<'a> {
    data: &'a mut [f32],
    cols: usize,
    accumulate: bool,
}

impl<'a> Out<'a> {
    pub(crate) fn new(data: &'a mut [f32], cols: usize, accumulate: bool) -> Out<'a> {
        Out {
            data,
            cols,
            accumulate,
        }
    }
}

/// `out = a b` (or `out += a b`), one thread.
pub(crate) fn matmul(out: Out<'_>, a: View<'_>, b: View<'_>) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    // The product reads and writes through raw pointers: the shapes are
    // checked in every build, not only in debug ones.
    assert_eq!(b.rows, k, "inner dimensions");
    assert_eq!(out.cols, n, "output columns");
    assert_eq!(out.data.len(), m * n, "output size");
    assert!(a.fits() && b.fits(), "a matrix outside its slice");
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !out.accumulate {
            out.data.fill(0.0);
        }
        return;
    }
    // SAFETY: `out` is `m x n` row-major and contiguous, `a` is `m x k` and
    // `b` is `k x n` at their strides, and every element of each lies inside
    // its slice (checked above); the output does not alias the inputs (a
    // `&mut` slice beside two `&` ones).
    unsafe {
        gemm(
            m,
            n,
            k,
            out.data.as_mut_ptr(),
            1,
            n as isize,
            out.accumulate,
            a.data.as_ptr(),
            a.cs as isize,
            a.rs as isize,
            b.data.as_ptr(),
            b.cs as isize,
            b.rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// `out = x W + b` for `n` rows of `x` (`[n, d_in]`, row-major), the weight
/// `[d_in, d_out]` row-major (Burn's layout), `d_out` the bias's length.
#[inline(always)]
pub(crate) fn affine(x: &[f32], n: usize, weight: &[f32], bias: &[f32], out: &mut Vec<f32>) {
    let d_out = bias.len();
    let d_in = weight.len() / d_out.max(1);
    assert_eq!(x.len(), n * d_in, "dense layer input size");
    out.clear();
    for _ in 0..n {
        out.extend_from_slice(bias);
    }
    matmul(
        Out::new(out, d_out, true),
        View::rows(x, n, d_in),
        View::rows(weight, d_in, d_out),
    );
}
