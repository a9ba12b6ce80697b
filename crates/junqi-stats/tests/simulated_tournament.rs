//! Bradley–Terry fits recover known strengths from simulated games, and the 95% intervals cover as often as
//! they claim to.

use junqi_stats::bradley_terry::{fit_bradley_terry, BtOptions, Game};
use junqi_stats::elo::{score_from_elo, ELO_PER_NAT};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const STRENGTHS: [f64; 5] = [0.0, 100.0, 200.0, 350.0, 500.0];
const FIRST_MOVE: f64 = 40.0;

/// A double round robin with `per_seating` games for every ordered pair. The first mover's expected score is
/// `p = L(r_i - r_j + f)`; a game is drawn with probability `draws·min(p, 1-p)` and otherwise won with the
/// probability that keeps the expectation at `p`.
fn tournament(rng: &mut Pcg64, per_seating: usize, draws: f64) -> Vec<Game> {
    let mut games = Vec::new();
    for (first, &a) in STRENGTHS.iter().enumerate() {
        for (second, &b) in STRENGTHS.iter().enumerate() {
            if first == second {
                continue;
            }
            let p = score_from_elo(a - b + FIRST_MOVE);
            let draw = draws * p.min(1.0 - p);
            let win = p - draw / 2.0;
            for _ in 0..per_seating {
                let u: f64 = rng.random();
                let score = if u < win {
                    1.0
                } else if u < win + draw {
                    0.5
                } else {
                    0.0
                };
                games.push(Game { first, second, score });
            }
        }
    }
    games
}

/// Standard error of `rating(p)` in Elo from the expected (Fisher) information at the true strengths, for
/// Bernoulli-equivalent games: each game adds `p(1-p)` to the information of its design row.
fn expected_stderr(per_seating: usize) -> Vec<f64> {
    // Parameters: players 1..=4 (player 0 is the anchor), then f; invert the 5×5 information numerically.
    let k = STRENGTHS.len();
    let size = k; // 4 players + f
    let mut info = vec![vec![0.0; size]; size];
    for first in 0..k {
        for second in 0..k {
            if first == second {
                continue;
            }
            let p = score_from_elo(STRENGTHS[first] - STRENGTHS[second] + FIRST_MOVE);
            let w = per_seating as f64 * p * (1.0 - p);
            let mut x = vec![0.0; size];
            if first > 0 {
                x[first - 1] += 1.0;
            }
            if second > 0 {
                x[second - 1] -= 1.0;
            }
            x[size - 1] = 1.0;
            for i in 0..size {
                for j in 0..size {
                    info[i][j] += w * x[i] * x[j];
                }
            }
        }
    }
    // Gauss–Jordan inverse of the small positive-definite matrix.
    let mut inv: Vec<Vec<f64>> = (0..size).map(|i| (0..size).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for c in 0..size {
        let d = info[c][c];
        for j in 0..size {
            info[c][j] /= d;
            inv[c][j] /= d;
        }
        for r in 0..size {
            if r != c {
                let m = info[r][c];
                for j in 0..size {
                    info[r][j] -= m * info[c][j];
                    inv[r][j] -= m * inv[c][j];
                }
            }
        }
    }
    (0..size).map(|i| inv[i][i].sqrt() * ELO_PER_NAT).collect()
}

#[test]
fn recovers_known_strengths_within_their_intervals() {
    let mut rng = Pcg64::seed_from_u64(20_240_601);
    let games = tournament(&mut rng, 300, 0.8);
    assert_eq!(games.len(), 6000);
    let fit = fit_bradley_terry(STRENGTHS.len(), &games, 0, &BtOptions::default()).unwrap();
    assert!(!fit.prior_used());
    let expected = expected_stderr(300);
    let f = fit.first_move.unwrap();
    let mut estimates: Vec<_> = fit.ratings[1..].iter().zip(&STRENGTHS[1..]).map(|(r, t)| (*r, *t)).collect();
    estimates.push((f, FIRST_MOVE));
    for ((rating, truth), want_se) in estimates.iter().zip(&expected) {
        assert!((rating.elo - truth).abs() < 3.0 * rating.stderr, "{rating:?} vs {truth}");
        // Observed and expected information agree closely with this many games.
        assert!((rating.stderr / want_se - 1.0).abs() < 0.1, "{} vs {want_se}", rating.stderr);
        assert!((rating.interval.width() - 2.0 * 1.959_964 * rating.stderr).abs() < 1e-6);
    }
    // Sensible widths: ratings to within ±10..±40 Elo, the seat term to within ±5..±15.
    for r in &fit.ratings[1..] {
        assert!((5.0..20.0).contains(&r.stderr), "{r:?}");
    }
    assert!((2.5..7.5).contains(&f.stderr), "{f:?}");
    // The data show a clear ordering of the players.
    assert!(fit.ratings.windows(2).all(|w| w[0].elo < w[1].elo));
}

/// Share of 95% intervals (four ratings and the seat term, over `runs` small tournaments) that hold the truth.
fn coverage(seed: u64, runs: usize, draws: f64) -> f64 {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (mut covered, mut total) = (0usize, 0usize);
    for _ in 0..runs {
        let games = tournament(&mut rng, 40, draws);
        let fit = fit_bradley_terry(STRENGTHS.len(), &games, 0, &BtOptions::default()).unwrap();
        for (r, t) in fit.ratings[1..].iter().zip(&STRENGTHS[1..]) {
            covered += usize::from(r.interval.contains(*t));
            total += 1;
        }
        covered += usize::from(fit.first_move.unwrap().interval.contains(FIRST_MOVE));
        total += 1;
    }
    covered as f64 / total as f64
}

#[test]
fn intervals_cover_95_percent_without_draws() {
    // 1000 intervals: the binomial sd of the rate is 0.7%, so 92%..98% is a wide margin.
    let rate = coverage(7, 200, 0.0);
    assert!((0.92..0.98).contains(&rate), "coverage {rate}");
}

#[test]
fn intervals_are_conservative_with_draws() {
    // The information counts a game as Bernoulli, variance p(1-p); draws make the real variance smaller
    // (40% draws at p = ½ give 0.15 instead of 0.25), so the intervals are wider than needed and cover more.
    let rate = coverage(8, 200, 0.8);
    assert!(rate >= 0.95, "coverage {rate}");
}
