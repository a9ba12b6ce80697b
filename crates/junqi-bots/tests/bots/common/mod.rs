//! Helpers shared by the bot tests.

use junqi_bots::Decision;
use junqi_core::{Game, MoveList};

/// The action is legal and in its policy; the policy lists distinct legal
/// actions with positive probabilities summing to 1.
pub fn check_decision(g: &Game, d: &Decision) {
    let mut list = MoveList::new();
    g.truth().legal_moves(&mut list);
    assert!(list.contains(d.action), "illegal {} in {}", d.action, g.truth());
    let mut seen = std::collections::HashSet::new();
    let mut sum = 0.0f64;
    for &(m, p) in &d.policy {
        assert!(list.contains(m), "policy holds illegal {m}");
        assert!(seen.insert(m), "policy lists {m} twice");
        assert!(p > 0.0 && p <= 1.0 && p.is_finite(), "probability {p}");
        sum += p as f64;
    }
    assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
    assert!(d.policy.iter().any(|&(m, p)| m == d.action && p > 0.0), "action not in its policy");
}
