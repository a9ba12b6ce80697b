//! The compact observation (`ObsCode`) against the plane encoder: along
//! random games of every mode and several rule variants, for both seats,
//! the planes rebuilt from the code are exactly `encode_observation`'s, and
//! the planes give back the code.

use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules, Seat};
use junqi_env::observation::{FLAG_WITH_PIECE, MOUNTAIN_OWN};
use junqi_env::{encode_observation, ObsCode, OBS_CHANNELS, OBS_SIZE};
use rand::Rng;

fn variants() -> Vec<Rules> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        out.push(Rules::preset(mode));
        for o in ["mine_rule=trade", "rail_turns=all", "bomb_flies=true", "max_plies=200", "no_progress_plies=30"] {
            let mut r = Rules::preset(mode);
            r.apply_override(o).unwrap();
            out.push(r);
        }
    }
    let mut two = Rules::preset(Mode::Fanqi);
    two.apply_override("color_rule=two_in_a_row").unwrap();
    out.push(two);
    let mut black = Rules::preset(Mode::Anqi);
    black.apply_override("first_player=black").unwrap();
    out.push(black);
    // The rules with state of their own (planes 110–131).
    for (mode, set) in [
        (Mode::Fanqi, "flag_carry=true"),
        (Mode::Fanqi, "hunqi=true"),
        (Mode::Fanqi, "mountains=open"),
        (Mode::Mingqi, "mountains=engineer"),
        (Mode::Mingqi, "mountains=open"),
    ] {
        let mut r = Rules::preset(mode);
        r.apply_override(set).unwrap();
        out.push(r);
    }
    out
}

#[test]
fn codes_rebuild_the_encoders_planes_exactly_along_random_games() {
    let mut rng = rng_from_seed(17);
    let mut moves = MoveList::new();
    let mut want = vec![0.0f32; OBS_SIZE];
    let mut checked = 0;
    // Positions with a flag sharing a node with a piece, and with a held mountain.
    let (mut loose_flags, mut held_mountains) = (0, 0);
    let any_on = |planes: &[f32], c: std::ops::Range<usize>| planes[c.start * 60..c.end * 60].iter().any(|&v| v != 0.0);
    for (g, rules) in variants().into_iter().enumerate() {
        for game_no in 0..3 {
            let start = Position::new_game(rules, 1000 + 10 * g as u64 + game_no);
            let mut game = Game::new(start);
            loop {
                for seat in Seat::BOTH {
                    let info = game.infoset(seat);
                    encode_observation(info, &mut want);
                    let code = ObsCode::from_infoset(info);
                    let got = code.planes();
                    if let Some(i) = got.iter().zip(&want).position(|(a, b)| a.to_bits() != b.to_bits()) {
                        panic!(
                            "{rules:?} ply {} seat {seat}: plane {} node {} code {} encoder {}",
                            game.truth().ply(),
                            i / 60,
                            i % 60,
                            got[i],
                            want[i]
                        );
                    }
                    assert_eq!(ObsCode::from_planes(&want).unwrap(), code);
                    assert_eq!(ObsCode::from_bytes(code.as_bytes()).unwrap(), code);
                    checked += 1;
                    loose_flags += any_on(&got, FLAG_WITH_PIECE..MOUNTAIN_OWN) as usize;
                    held_mountains += any_on(&got, MOUNTAIN_OWN..OBS_CHANNELS) as usize;
                }
                game.truth().legal_moves(&mut moves);
                if game.truth().outcome_given(moves.len()).is_some() {
                    break;
                }
                let mv = moves[rng.random_range(0..moves.len())];
                game.play(mv).unwrap();
            }
        }
    }
    assert!(checked > 10_000, "{checked} positions");
    assert!(loose_flags > 0 && held_mountains > 100, "{loose_flags} loose flags, {held_mountains} held mountains");
}

#[test]
fn equal_information_gives_equal_codes_and_hashes() {
    // Two 翻棋 deals that differ only in hidden kinds look the same to both seats.
    let rules = Rules::preset(Mode::Fanqi);
    let a = Position::new_game(rules, 1);
    let b = Position::new_game(rules, 2);
    for seat in Seat::BOTH {
        let ca = ObsCode::from_infoset(&junqi_core::InfoSet::new(&a, seat));
        let cb = ObsCode::from_infoset(&junqi_core::InfoSet::new(&b, seat));
        assert_eq!(ca, cb);
        assert_eq!(ca.hash64(), cb.hash64());
    }
    let s1 = ObsCode::from_infoset(&junqi_core::InfoSet::new(&a, Seat::First));
    let s2 = ObsCode::from_infoset(&junqi_core::InfoSet::new(&a, Seat::Second));
    assert_ne!(s1, s2, "seat_two differs");
}

/// `scripts/decode_position.py`, the numpy decoder `docs/data.md` gives
/// Python users, rebuilds the same planes bit for bit (it needs numpy:
/// `scripts/setup.sh` installs it into `.deps/python`).
#[test]
fn the_python_decoder_gives_the_same_planes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("junqi-code-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut codes, mut planes) = (Vec::new(), Vec::new());
    let mut rng = rng_from_seed(3);
    let mut moves = MoveList::new();
    for (g, rules) in variants().into_iter().enumerate() {
        let mut game = Game::new(Position::new_game(rules, 77 + g as u64));
        for ply in 0..120 {
            let seat = game.truth().turn();
            if ply % 7 == 0 {
                let code = ObsCode::from_infoset(game.infoset(seat));
                codes.extend_from_slice(code.as_bytes());
                planes.extend(code.planes().iter().flat_map(|v| v.to_le_bytes()));
            }
            game.truth().legal_moves(&mut moves);
            if game.truth().outcome_given(moves.len()).is_some() {
                break;
            }
            game.play(moves[rng.random_range(0..moves.len())]).unwrap();
        }
    }
    std::fs::write(dir.join("codes.bin"), &codes).unwrap();
    std::fs::write(dir.join("planes.bin"), &planes).unwrap();
    let deps = root.join(".deps/python");
    let path = match std::env::var_os("PYTHONPATH") {
        Some(p) => format!("{}:{}", deps.display(), p.to_string_lossy()),
        None => deps.display().to_string(),
    };
    let out = std::process::Command::new("python3")
        .arg(root.join("scripts/decode_position.py"))
        .arg(dir.join("codes.bin"))
        .arg(dir.join("planes.bin"))
        .env("PYTHONPATH", path)
        .output()
        .expect("python3 runs (scripts/setup.sh installs numpy into .deps/python)");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bit for bit"));
}
