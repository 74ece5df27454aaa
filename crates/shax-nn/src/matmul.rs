//! One matrix product, `out = a b` or `out += a b`, through the `gemm` crate
//! (the kernels Burn's CPU backend uses, picked at run time), with the shapes
//! checked before its raw pointers are read, and the input layer's products
//! over mostly-zero rows: what the direct forward pass and the direct training
//! step share.

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

/// Output columns a sparse product keeps in registers at once: eight AVX2
/// lanes of eight.
const COLUMNS: usize = 64;

/// The non-zero inputs a sparse product gathers before it adds their rows.
const TERMS: usize = 64;

/// `out = x W + b` for `n` rows of `x` that are mostly zeros (the encoder's
/// one-hot planes): each row adds the weight rows of its non-zero inputs,
/// [`COLUMNS`] output columns at a time so that they stay in registers.
/// Nothing is allocated but `out`.
#[inline(always)]
pub(crate) fn sparse_affine(x: &[f32], n: usize, weight: &[f32], bias: &[f32], out: &mut Vec<f32>) {
    let d_out = bias.len();
    let d_in = weight.len() / d_out.max(1);
    assert_eq!(x.len(), n * d_in, "sparse layer input size");
    assert_eq!(weight.len(), d_in * d_out, "sparse layer weight size");
    out.clear();
    for row in x.chunks_exact(d_in) {
        let start = out.len();
        out.extend_from_slice(bias);
        let out = &mut out[start..];
        let mut terms = [(0usize, 0.0f32); TERMS];
        let mut k = 0;
        for (i, &v) in row.iter().enumerate() {
            if v != 0.0 {
                terms[k] = (i * d_out, v);
                k += 1;
                if k == TERMS {
                    add_rows(out, weight, &terms);
                    k = 0;
                }
            }
        }
        add_rows(out, weight, &terms[..k]);
    }
}

/// `dw = x^T dy` for the rows of [`sparse_affine`]: `x` `[n, d_in]`, `dy`
/// `[n, d_out]`, `dw` `[d_in, d_out]` overwritten. Each input's weight row
/// sums the gradient rows of the batch rows where that input is non-zero.
#[inline(always)]
pub(crate) fn sparse_weight_gradient(x: &[f32], dy: &[f32], n: usize, dw: &mut [f32]) {
    if n == 0 {
        dw.fill(0.0);
        return;
    }
    let (d_in, d_out) = (x.len() / n, dy.len() / n);
    assert_eq!(x.len(), n * d_in, "sparse layer input size");
    assert_eq!(dy.len(), n * d_out, "sparse layer gradient size");
    assert_eq!(dw.len(), d_in * d_out, "sparse layer weight size");
    // The non-zeros grouped by input: input `i`'s are
    // `terms[starts[i]..starts[i + 1]]`, each a row of `dy` and its factor.
    let mut starts = vec![0usize; d_in + 1];
    for row in x.chunks_exact(d_in) {
        for (i, v) in row.iter().enumerate() {
            starts[i + 1] += usize::from(*v != 0.0);
        }
    }
    for i in 0..d_in {
        starts[i + 1] += starts[i];
    }
    let mut terms = vec![(0usize, 0.0f32); starts[d_in]];
    let mut next = starts.clone();
    for (r, row) in x.chunks_exact(d_in).enumerate() {
        for (i, &v) in row.iter().enumerate() {
            if v != 0.0 {
                terms[next[i]] = (r * d_out, v);
                next[i] += 1;
            }
        }
    }
    dw.fill(0.0);
    for (i, dw) in dw.chunks_exact_mut(d_out).enumerate() {
        add_rows(dw, dy, &terms[starts[i]..starts[i + 1]]);
    }
}

/// `out += v * m[at..at + out.len()]` for each `(at, v)` of `terms`.
#[inline(always)]
fn add_rows(out: &mut [f32], m: &[f32], terms: &[(usize, f32)]) {
    let width = out.len();
    let mut blocks = out.chunks_exact_mut(COLUMNS);
    for (b, block) in (&mut blocks).enumerate() {
        let c = b * COLUMNS;
        let mut acc = [0.0f32; COLUMNS];
        acc.copy_from_slice(block);
        for &(at, v) in terms {
            for (a, w) in acc.iter_mut().zip(&m[at + c..at + c + COLUMNS]) {
                *a += v * w;
            }
        }
        block.copy_from_slice(&acc);
    }
    let rest = blocks.into_remainder();
    let c = width - rest.len();
    for &(at, v) in terms {
        for (a, w) in rest.iter_mut().zip(&m[at + c..at + width]) {
            *a += v * w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows with most inputs zero, a few ones and a few other values, as the
    /// encoder's; a row of zeros only, and one of ones only (more non-zeros
    /// than a sparse product gathers at once).
    fn sparse_rows(n: usize, d_in: usize) -> Vec<f32> {
        (0..n * d_in)
            .map(|k| match (k * 7919) % 23 {
                0 | 5 => 1.0,
                9 => 0.25 + (k % 5) as f32,
                _ => 0.0,
            })
            .enumerate()
            .map(|(k, v)| match k / d_in {
                2 => 0.0,
                4 => 1.0,
                _ => v,
            })
            .collect()
    }

    fn numbers(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|k| ((k * 31 + seed * 17) % 101) as f32 / 50.0 - 1.0)
            .collect()
    }

    fn assert_close(a: &[f32], b: &[f32]) {
        assert_eq!(a.len(), b.len());
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-4 * (1.0 + y.abs()),
                "element {k}: {x} against {y}"
            );
        }
    }

    /// The sparse products equal the dense ones, over widths that fill the
    /// register blocks exactly, leave a remainder, and fall short of one; and
    /// an empty batch gives nothing and a zero gradient.
    #[test]
    fn sparse_products_are_the_dense_ones() {
        let (n, d_in) = (12, 2 * TERMS + 22);
        let x = sparse_rows(n, d_in);
        assert!(x.iter().filter(|v| **v != 0.0).count() < x.len() / 4);
        for d_out in [COLUMNS, 2 * COLUMNS + 22, 17] {
            let (w, b) = (numbers(d_in * d_out, 1), numbers(d_out, 2));
            let (mut dense, mut sparse) = (Vec::new(), vec![3.0; 5]);
            affine(&x, n, &w, &b, &mut dense);
            sparse_affine(&x, n, &w, &b, &mut sparse);
            assert_close(&sparse, &dense);

            let dy = numbers(n * d_out, 3);
            let mut dense = vec![0.0; d_in * d_out];
            matmul(
                Out::new(&mut dense, d_out, false),
                View::rows(&x, n, d_in).t(),
                View::rows(&dy, n, d_out),
            );
            let mut sparse = vec![5.0; d_in * d_out];
            sparse_weight_gradient(&x, &dy, n, &mut sparse);
            assert_close(&sparse, &dense);
        }
        // No rows: no output, and a zero gradient.
        let (w, b) = (numbers(d_in * 3, 1), numbers(3, 2));
        let mut out = vec![1.0; 4];
        sparse_affine(&[], 0, &w, &b, &mut out);
        assert!(out.is_empty());
        let mut dw = vec![1.0; d_in * 3];
        sparse_weight_gradient(&[], &[], 0, &mut dw);
        assert!(dw.iter().all(|v| *v == 0.0));
    }
}
