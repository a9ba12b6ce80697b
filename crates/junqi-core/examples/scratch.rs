use junqi_core::*;
use std::time::Instant;
fn main() {
    for mode in Mode::ALL {
        let rules = Rules::preset(mode);
        let mut rng = rng_from_seed(1);
        let mut list = MoveList::new();
        let t = Instant::now();
        let (mut plies, mut games) = (0u64, 0u64);
        let mut terms = std::collections::HashMap::new();
        while t.elapsed().as_secs_f64() < 2.0 {
            let mut pos = Position::new_game_with(rules, &mut rng);
            let (o, p) = playout::random_playout(&mut pos, &mut rng, &mut list);
            *terms.entry(format!("{:?} {}", o.termination, o.result_str())).or_insert(0) += 1;
            plies += p as u64; games += 1;
        }
        let s = t.elapsed().as_secs_f64();
        println!("{mode}: {games} games {:.0} games/s {:.0} plies/s avg {:.1} plies", games as f64/s, plies as f64/s, plies as f64/games as f64);
        let mut v: Vec<_> = terms.into_iter().collect(); v.sort();
        println!("  {:?}", v);
    }
    let p = Position::new_game(Rules::preset(Mode::Anqi), 3);
    println!("{}", p);
}
