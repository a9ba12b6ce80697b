//! The little dense linear algebra the Bradley–Terry fit needs: Cholesky factor, solve, inverse of a symmetric
//! positive-definite matrix stored row-major.

/// Lower-triangular Cholesky factor of the `n × n` matrix `a`, or `None` when a pivot is not above
/// `rel_tol` times the largest diagonal entry (the matrix is singular or not positive definite).
pub(crate) fn cholesky(a: &[f64], n: usize, rel_tol: f64) -> Option<Vec<f64>> {
    let scale = (0..n).map(|i| a[i * n + i]).fold(0.0, f64::max);
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d.is_nan() || d <= rel_tol * scale {
            return None;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b` given the Cholesky factor `l`.
pub(crate) fn solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..n {
        for k in 0..i {
            y[i] -= l[i * n + k] * y[k];
        }
        y[i] /= l[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            y[i] -= l[k * n + i] * y[k];
        }
        y[i] /= l[i * n + i];
    }
    y
}

/// `(L Lᵀ)⁻¹`, row-major.
pub(crate) fn inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut inv = vec![0.0; n * n];
    let mut e = vec![0.0; n];
    for j in 0..n {
        e.iter_mut().for_each(|x| *x = 0.0);
        e[j] = 1.0;
        let col = solve(l, n, &e);
        for i in 0..n {
            inv[i * n + j] = col[i];
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts_a_small_spd_matrix() {
        let a = [4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let l = cholesky(&a, 3, 1e-12).unwrap();
        let x = solve(&l, 3, &[6.0, 8.0, 4.0]);
        for (xi, want) in x.iter().zip([1.0, 1.0, 1.0]) {
            assert!((xi - want).abs() < 1e-12);
        }
        let inv = inverse(&l, 3);
        for i in 0..3 {
            for j in 0..3 {
                let p: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((p - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn singular_is_none() {
        assert!(cholesky(&[1.0, 1.0, 1.0, 1.0], 2, 1e-12).is_none());
        assert!(cholesky(&[0.0], 1, 1e-12).is_none());
    }
}
