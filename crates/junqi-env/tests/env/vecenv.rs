//! `VecEnv`: determinism from seeds, outputs equal to encoding the games'
//! information sets, auto-reset, rewards and terminations against a reference
//! `Game`, and clear errors for illegal actions.

use junqi_core::{rng_from_seed, Game, GameRng, Mode, Position, Rules, Seat, ACTIONS};
use junqi_env::{
    action_from_frame, action_to_frame, encode_mask, encode_observation, episode_seed, EnvError, StepBuffers, VecEnv,
    OBS_SIZE,
};
use rand::Rng;

/// A uniformly random legal action of game `i`, read from the mask.
fn random_actions(buf: &StepBuffers, rng: &mut GameRng, actions: &mut Vec<usize>) {
    actions.clear();
    for i in 0..buf.len() {
        let mask = buf.mask_of(i);
        let legal: Vec<usize> = (0..ACTIONS).filter(|&a| mask[a] == 1).collect();
        assert_eq!(legal.len(), buf.legal_count[i] as usize);
        actions.push(legal[rng.random_range(0..legal.len())]);
    }
}

fn rules(mode: Mode, max_plies: Option<u32>) -> Rules {
    let mut r = Rules::preset(mode);
    if let Some(m) = max_plies {
        r.apply_override(&format!("max_plies={m}")).unwrap();
    }
    r
}

/// The buffers hold exactly the encoding of each slot's seat to move.
fn check_buffers_match_games(env: &VecEnv, buf: &StepBuffers) {
    let mut obs = vec![0f32; OBS_SIZE];
    let mut mask = vec![0u8; ACTIONS];
    let mut scratch = junqi_core::MoveList::new();
    for i in 0..env.len() {
        let game = env.game(i);
        let seat = game.truth().turn();
        assert_eq!(buf.seat[i], seat);
        encode_observation(game.infoset(seat), &mut obs);
        assert_eq!(buf.obs_of(i), &obs[..], "slot {i}");
        encode_mask(game.infoset(seat), &mut scratch, &mut mask);
        assert_eq!(buf.mask_of(i), &mask[..], "slot {i}");
    }
}

/// A digest of every output buffer.
fn digest(buf: &StepBuffers) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    buf.obs.iter().for_each(|v| v.to_bits().hash(&mut h));
    buf.mask.hash(&mut h);
    buf.reward.iter().for_each(|v| v.to_bits().hash(&mut h));
    buf.done.hash(&mut h);
    buf.termination.hash(&mut h);
    buf.seat.hash(&mut h);
    h.finish()
}

#[test]
fn reset_starts_the_seeded_games() {
    for mode in Mode::ALL {
        let r = rules(mode, None);
        let mut env = VecEnv::new(5, r);
        let mut buf = StepBuffers::new(5);
        let seeds = [11, 12, 13, 0, u64::MAX];
        env.reset(&seeds, &mut buf).unwrap();
        for (i, &s) in seeds.iter().enumerate() {
            assert_eq!(env.game(i).start(), &Position::new_game(r, s));
            assert_eq!(env.game_seed(i), s);
            assert_eq!(env.episode(i), 0);
            assert!(!buf.done[i]);
        }
        check_buffers_match_games(&env, &buf);
        if mode == Mode::Fanqi {
            assert!(buf.legal_count.iter().all(|&c| c == 50), "50 flips at the start of fanqi");
        }
    }
}

#[test]
fn steps_are_deterministic_from_seeds_and_match_the_games() {
    for mode in Mode::ALL {
        let r = rules(mode, Some(120));
        let seeds: Vec<u64> = (100..108).collect();
        let run = || {
            let mut env = VecEnv::new(8, r);
            let mut buf = StepBuffers::new(8);
            env.reset(&seeds, &mut buf).unwrap();
            let mut rng = rng_from_seed(7);
            let mut actions = Vec::new();
            let mut trace = Vec::new();
            for step in 0..300 {
                random_actions(&buf, &mut rng, &mut actions);
                env.step(&actions, &mut buf).unwrap();
                if step % 37 == 0 {
                    check_buffers_match_games(&env, &buf);
                }
                trace.push(digest(&buf));
            }
            (trace, (0..8).map(|i| env.episode(i)).collect::<Vec<_>>())
        };
        let (a, episodes) = run();
        let (b, _) = run();
        assert!(a == b, "{mode}: two runs from the same seeds differ");
        assert!(
            episodes.iter().all(|&e| e >= 2),
            "{mode}: max_plies=120 over 300 steps resets each slot: {episodes:?}"
        );
    }
}

#[test]
fn rewards_dones_and_auto_reset_agree_with_reference_games() {
    for (mode, max_plies) in
        [(Mode::Fanqi, None), (Mode::Anqi, None), (Mode::Mingqi, Some(150)), (Mode::Fanqi, Some(90))]
    {
        let r = rules(mode, max_plies);
        let n = 6;
        let seeds: Vec<u64> = (0..n as u64).map(|i| 1000 + i * 17).collect();
        let mut env = VecEnv::new(n, r);
        let mut buf = StepBuffers::new(n);
        env.reset(&seeds, &mut buf).unwrap();
        let mut reference: Vec<Game> = seeds.iter().map(|&s| Game::new(Position::new_game(r, s))).collect();
        let mut episodes = vec![0u64; n];
        let mut rng = rng_from_seed(3);
        let mut actions = Vec::new();
        let mut finished = 0;
        let mut terminations = std::collections::HashSet::new();
        let mut rewards = std::collections::HashSet::new();
        for _ in 0..1500 {
            random_actions(&buf, &mut rng, &mut actions);
            let movers: Vec<Seat> = buf.seat.clone();
            env.step(&actions, &mut buf).unwrap();
            for i in 0..n {
                let mv = action_from_frame(actions[i], movers[i]).unwrap();
                reference[i].play(mv).unwrap();
                match reference[i].outcome() {
                    None => {
                        assert!(!buf.done[i]);
                        assert_eq!(buf.reward[i], 0.0);
                        assert_eq!(buf.termination[i], None);
                        assert!(env.finished_game(i).is_none());
                        assert_eq!(env.game(i).moves(), reference[i].moves());
                    }
                    Some(outcome) => {
                        assert!(buf.done[i], "{mode} slot {i}: the reference game is over");
                        assert_eq!(buf.termination[i], Some(outcome.termination));
                        let want = match outcome.winner {
                            None => 0.0,
                            Some(w) if w == movers[i] => 1.0,
                            Some(_) => -1.0,
                        };
                        assert_eq!(buf.reward[i], want);
                        rewards.insert(want as i8);
                        let done_game = env.finished_game(i).expect("finished game kept");
                        assert_eq!(done_game.moves(), reference[i].moves());
                        assert_eq!(done_game.outcome(), Some(outcome));
                        terminations.insert(outcome.termination);
                        // Auto-reset: the next episode from the derived seed.
                        episodes[i] += 1;
                        assert_eq!(env.episode(i), episodes[i]);
                        let seed = episode_seed(seeds[i], episodes[i]);
                        assert_eq!(env.game_seed(i), seed);
                        reference[i] = Game::new(Position::new_game(r, seed));
                        assert_eq!(env.game(i).start(), reference[i].start());
                        assert!(env.game(i).moves().is_empty());
                        finished += 1;
                    }
                }
            }
            check_buffers_match_games(&env, &buf);
        }
        assert!(finished >= n, "{mode}: only {finished} games finished");
        if max_plies.is_none() {
            assert!(rewards.contains(&1) && rewards.contains(&-1), "{mode}: rewards seen {rewards:?}");
        }
        eprintln!("{mode} max_plies={max_plies:?}: {finished} games, terminations {terminations:?}");
    }
}

#[test]
fn episode_seeds_differ() {
    let mut seen = std::collections::HashSet::new();
    for s in 0..50u64 {
        for e in 0..50u64 {
            assert!(seen.insert(episode_seed(s, e)), "seed {s} episode {e} repeats");
        }
    }
    assert_eq!(episode_seed(42, 0), 42);
}

#[test]
fn illegal_actions_are_errors_and_change_nothing() {
    let r = rules(Mode::Fanqi, None);
    let mut env = VecEnv::new(3, r);
    let mut buf = StepBuffers::new(3);
    assert_eq!(env.step(&[0, 0, 0], &mut buf), Err(EnvError::NotReset));
    env.reset(&[1, 2, 3], &mut buf).unwrap();
    let before = buf.clone();
    let mut rng = rng_from_seed(0);
    let mut actions = Vec::new();
    random_actions(&buf, &mut rng, &mut actions);

    // A move (not a flip) at the start of 翻棋 is illegal.
    let mut bad = actions.clone();
    bad[1] = 5; // a1a2: from a1 (0) × 60 + to a2 (5)
    match env.step(&bad, &mut buf) {
        Err(EnvError::Illegal { game: 1, action: 5, seat: Seat::First, .. }) => {}
        other => panic!("expected an illegal-action error, got {other:?}"),
    }
    let mut bad = actions.clone();
    bad[2] = ACTIONS;
    assert_eq!(env.step(&bad, &mut buf), Err(EnvError::OutOfRange { game: 2, action: ACTIONS }));
    assert!(matches!(env.step(&actions[..2], &mut buf), Err(EnvError::Length { .. })));
    let mut small = StepBuffers::new(2);
    assert!(matches!(env.step(&actions, &mut small), Err(EnvError::Length { .. })));
    // Nothing moved: the games are at ply 0 and the buffers are untouched.
    for i in 0..3 {
        assert!(env.game(i).moves().is_empty());
    }
    assert_eq!(buf.obs, before.obs);
    assert_eq!(buf.mask, before.mask);
    // The error message names the game and the move.
    let err = env.step(&[actions[0], 5, actions[2]], &mut buf).unwrap_err();
    assert!(err.to_string().contains("a1a2"), "{err}");

    // The legal actions still play, and seat 2's frame is used for its action ids.
    env.step(&actions, &mut buf).unwrap();
    assert!(buf.seat.iter().all(|&s| s == Seat::Second));
    let mut rng = rng_from_seed(1);
    random_actions(&buf, &mut rng, &mut actions);
    let expected: Vec<_> = (0..3).map(|i| action_from_frame(actions[i], Seat::Second).unwrap()).collect();
    for (i, m) in expected.iter().enumerate() {
        assert_eq!(action_to_frame(*m, Seat::Second), actions[i]);
    }
    env.step(&actions, &mut buf).unwrap();
    for (i, m) in expected.iter().enumerate() {
        assert_eq!(env.game(i).moves()[1], *m);
    }
}
