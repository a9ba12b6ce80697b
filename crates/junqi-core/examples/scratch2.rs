use junqi_core::*;
use rand::Rng;
fn main() {
    let mut bad = 0;
    for mode in Mode::ALL {
        for seed in 0..300u64 {
            let mut rules = Rules::preset(mode);
            if seed % 3 == 1 && mode == Mode::Anqi { rules.apply_override("engineer_scout=true").unwrap(); }
            if seed % 5 == 2 { rules.apply_override("mine_rule=trade").unwrap(); }
            if seed % 7 == 3 && mode == Mode::Fanqi { rules.apply_override("attack_hidden=true").unwrap(); }
            if seed % 4 == 3 { rules.apply_override("flag_capturer=lowest").unwrap(); }
            let mut rng = rng_from_seed(seed);
            let start = Position::new_game_with(rules, &mut rng);
            let s = start.to_jfen();
            let back = Position::from_jfen(&s, rules).unwrap();
            assert_eq!(back, start, "{s}");
            let mut g = Game::new(start);
            let mut a = MoveList::new(); let mut b = MoveList::new();
            loop {
                let t = g.truth().clone();
                t.legal_moves(&mut a);
                if a.is_empty() { break; }
                let seat = t.turn();
                g.infoset(seat).legal_moves(&mut b);
                let mut x: Vec<_> = a.iter().copied().collect(); let mut y: Vec<_> = b.iter().copied().collect();
                x.sort(); y.sort();
                if x != y { bad += 1; println!("movelist mismatch {mode} {}", t); break; }
                // possible sets contain the truth
                for s2 in Seat::BOTH {
                    let info = g.infoset(s2);
                    if let Some(en) = t.colour_of(s2.other()) {
                        for sq in Square::all() {
                            if let Some(p) = t.piece_at(sq) { if p.colour == en && !t.is_face_down(sq) {
                                if info.possible_kinds(sq) & p.kind.bit() == 0 { bad += 1; println!("belief excludes truth {mode} {sq} {:?} {:b} seed {seed} ply {}", p, info.possible_kinds(sq), t.ply()); }
                            }}
                        }
                    }
                }
                let mv = a[rng.random_range(0..a.len())];
                let j = Position::from_jfen(&t.to_jfen(), rules).unwrap();
                assert_eq!(j, t);
                g.play(mv).unwrap();
                if bad > 5 { return; }
            }
        }
    }
    println!("bad = {bad}");
}
