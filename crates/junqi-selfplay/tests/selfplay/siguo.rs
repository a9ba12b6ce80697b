//! Four-player self-play (`selfplay --siguo`) at the two-player run's level:
//! samples in their own format, resuming, parts and their merge.

use junqi_selfplay::*;
use junqi_siguo::observation::{action_index, encode, OBS_LEN};
use junqi_siguo::{Army, Mode, Rules, SiguoCode};
use std::path::{Path, PathBuf};

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-siguo-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(mode: Mode, games: u64, samples: SamplesPerGame) -> SiguoConfig {
    SiguoConfig::new(Rules::preset(mode), games, ["heuristic".into(), "random".into()], 21)
        .unwrap()
        .with_shard_games(2)
        .unwrap()
        .with_samples(samples)
}

fn options(threads: usize, part: Option<Part>) -> RunOptions {
    RunOptions { threads, part, ..RunOptions::default() }
}

/// Every games row and samples row of a run, in order.
fn stored(dir: &Path) -> (Vec<SiguoGame>, Vec<SiguoSample>) {
    let games =
        shard_files(&dir.join(GAMES_DIR)).unwrap().iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect();
    let samples =
        shard_files(&dir.join(SAMPLES_DIR)).unwrap().iter().flat_map(|f| read_siguo_samples_file(f).unwrap()).collect();
    (games, samples)
}

/// Each sample is the mover's view at its ply: the planes rebuilt from its
/// code are `observation::encode`'s of the mover's information set there,
/// the legal actions the referee's, the policy one-hot on the move played,
/// the outcome the mover's team's, the belief targets the true kinds of
/// the pieces the mover could not tell; `--samples-per-game K` keeps K plies.
#[test]
fn four_player_samples_rebuild_the_observation_and_targets() {
    let mut targets = 0;
    for (mode, samples) in [(Mode::Anqi, SamplesPerGame::All), (Mode::Shuangming, SamplesPerGame::Count(5))] {
        let dir = fresh(&format!("samples-{mode:?}"));
        let c = config(mode, 2, samples);
        let summary = run_siguo(&c, &dir, &options(2, None)).unwrap();
        let (games, rows) = stored(&dir);
        assert_eq!(summary.samples, rows.len() as u64);
        for g in &games {
            let own: Vec<&SiguoSample> = rows.iter().filter(|s| s.game_id == g.game_id).collect();
            let want = match samples {
                SamplesPerGame::All => g.plies as usize,
                SamplesPerGame::Count(k) => (k as usize).min(g.plies as usize),
            };
            assert_eq!(own.len(), want);
            let rules = Rules::from_toml_str(&g.rules).unwrap();
            let mut t = junqi_siguo::parse(&g.start, rules).unwrap();
            let mut infos: Vec<_> = Army::ALL.iter().map(|&a| junqi_siguo::SiguoInfoSet::new(&t, a)).collect();
            let mut next = own.iter().peekable();
            for (ply, text) in g.moves.iter().enumerate() {
                let mv: junqi_siguo::Move = text.parse().unwrap();
                if let Some(s) = next.next_if(|s| s.ply == ply as u32) {
                    let seat = t.turn();
                    assert_eq!(s.seat as usize, seat.index());
                    let mut planes = vec![0.0; OBS_LEN];
                    SiguoCode::from_bytes(&s.code).unwrap().planes_into(&mut planes).unwrap();
                    assert_eq!(planes, encode(&infos[seat.index()]), "game {} ply {ply}", g.game_id);
                    let mut list = junqi_siguo::MoveList::new();
                    t.legal_moves(&mut list);
                    let mut legal: Vec<u16> = list.iter().map(|&m| action_index(seat, m) as u16).collect();
                    legal.sort_unstable();
                    assert_eq!(s.legal_actions, legal);
                    assert_eq!(s.action as usize, action_index(seat, mv));
                    let hot: Vec<u16> =
                        s.legal_actions.iter().zip(&s.policy).filter(|(_, &p)| p == 1.0).map(|(&a, _)| a).collect();
                    assert_eq!((hot, s.policy.iter().sum::<f32>()), (vec![s.action], 1.0));
                    let team_a = seat.index() % 2 == 0;
                    let want = match (g.result.as_str(), team_a) {
                        ("1/2-1/2", _) => 0,
                        ("1-0", true) | ("0-1", false) => 1,
                        _ => -1,
                    };
                    assert_eq!((s.outcome, s.termination.as_str()), (want, g.termination.as_str()));
                    assert_eq!(s.hidden_kinds, junqi_siguo::hidden_kind_targets(&t, &infos[seat.index()]));
                    for (r, &k) in s.hidden_kinds.iter().enumerate().filter(|(_, &k)| k > 0) {
                        let node = junqi_siguo::observation::absolute_node(seat, junqi_siguo::Node::new(r).unwrap());
                        let piece = t.piece_at(node).unwrap();
                        assert!(!infos[seat.index()].sees(piece.army));
                        assert_eq!(k as usize, piece.kind.index() + 1, "game {} ply {ply} node {node}", g.game_id);
                        targets += 1;
                    }
                }
                let before = t.clone();
                let effect = t.play(mv).unwrap();
                let a = junqi_siguo::Announcement::new(&before, mv, &effect, &t);
                infos.iter_mut().for_each(|i| i.update(&a));
            }
            assert!(next.next().is_none());
        }
        let report = replay_dir(&dir, None).unwrap();
        assert_eq!((report.games, report.mismatches.len()), (2, 0), "{:?}", report.mismatches);
        let _ = std::fs::remove_dir_all(&dir);
    }
    // 四国暗棋 hides three armies, 双明 two: most samples have targets.
    assert!(targets > 1000, "{targets} belief targets");
}

/// `junqi-siguo-samples/1` shards (no belief targets) still read, with no
/// targets, and `junqi replay` accepts them; a merge of a `/1` part with a
/// `/2` one is refused naming both formats; and a `/2` sample whose
/// targets were changed is a replay mismatch.
#[test]
fn old_samples_still_read_and_a_merge_never_mixes_formats() {
    let (p0, p1) = (fresh("v1-part-0"), fresh("v1-part-1"));
    let c = config(Mode::Anqi, 4, SamplesPerGame::Count(3));
    for (i, dir) in [&p0, &p1].into_iter().enumerate() {
        run_siguo(&c, dir, &options(1, Some(Part::new(i as u64, 2).unwrap()))).unwrap();
    }
    let shard = p1.join(SAMPLES_DIR).join(shard_name(1));
    let before = read_siguo_samples_file(&shard).unwrap();
    assert!(before.iter().any(|s| !s.hidden_kinds.is_empty()));
    rewrite_as_siguo_samples_v1(&shard).unwrap();
    let (after, format) = read_siguo_samples_versioned(&shard).unwrap();
    assert_eq!(format, SIGUO_SAMPLES_FORMAT_V1);
    let without = |s: &SiguoSample| SiguoSample { hidden_kinds: Vec::new(), ..s.clone() };
    assert_eq!(after, before.iter().map(without).collect::<Vec<_>>());
    let report = replay_dir(&p1, None).unwrap();
    assert_eq!((report.games, report.mismatches.len()), (2, 0), "{:?}", report.mismatches);
    let err = merge_parts(&[p0.clone(), p1.clone()], &fresh("v1-merged")).unwrap_err().to_string();
    assert!(err.contains(SIGUO_SAMPLES_FORMAT_V1) && err.contains(SIGUO_SAMPLES_FORMAT), "{err}");
    // Running the part's command again plays the old shard again, in `/2`,
    // the same samples as before; then the parts merge.
    run_siguo(&c, &p1, &options(1, Some(Part::new(1, 2).unwrap()))).unwrap();
    let (again, format) = read_siguo_samples_versioned(&shard).unwrap();
    assert_eq!((format, &again), (SIGUO_SAMPLES_FORMAT, &before));
    let merged = fresh("v1-merged");
    merge_parts(&[p0.clone(), p1.clone()], &merged).unwrap();
    // A `/2` sample with another kind for one of its targets is named by replay.
    let shard = p0.join(SAMPLES_DIR).join(shard_name(0));
    let mut rows = read_siguo_samples_file(&shard).unwrap();
    let i = rows.iter().position(|s| !s.hidden_kinds.is_empty()).unwrap();
    let j = rows[i].hidden_kinds.iter().position(|&k| k > 0).unwrap();
    rows[i].hidden_kinds[j] = rows[i].hidden_kinds[j] % 12 + 1;
    let game = rows[i].game_id;
    std::fs::remove_file(&shard).unwrap();
    std::fs::remove_file(checksum_path(&shard)).unwrap();
    write_siguo_samples_shard(&p0.join(SAMPLES_DIR), 0, &rows, &[]).unwrap();
    let report = replay_dir(&p0, None).unwrap();
    let ids: Vec<u64> = report.mismatches.iter().map(|m| m.0).collect();
    assert_eq!(ids, [game], "{:?}", report.mismatches);
    for d in [p0, p1, fresh("v1-merged")] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The samples readers refuse each other's shards by name, and `junqi
/// replay` names a game whose sample was changed.
#[test]
fn sample_formats_are_refused_by_name_and_replay_checks_them() {
    let dir = fresh("formats");
    run_siguo(&config(Mode::Quanming, 2, SamplesPerGame::Count(4)), &dir, &options(1, None)).unwrap();
    let shard = dir.join(SAMPLES_DIR).join(shard_name(0));
    let err = read_samples_file(&shard).unwrap_err().to_string();
    assert!(err.contains(SIGUO_SAMPLES_FORMAT), "{err}");
    let two = fresh("formats-two");
    let plan =
        prepare(Config::new(junqi_core::Rules::default(), 2, ["random", "random"], 1).unwrap(), Some(&two)).unwrap();
    plan.run(&RunOptions { threads: 1, ..RunOptions::default() }).unwrap();
    let err = read_siguo_samples_file(&two.join(SAMPLES_DIR).join(shard_name(0))).unwrap_err().to_string();
    assert!(err.contains("two-player") && err.contains(SIGUO_SAMPLES_FORMAT), "{err}");
    // A tampered sample: its action changed.
    let mut rows = read_siguo_samples_file(&shard).unwrap();
    let i = rows.iter().position(|s| s.game_id == 1).unwrap();
    let other = rows[i].legal_actions.iter().copied().find(|&a| a != rows[i].action).unwrap();
    rows[i].action = other;
    std::fs::remove_file(&shard).unwrap();
    std::fs::remove_file(checksum_path(&shard)).unwrap();
    write_siguo_samples_shard(&dir.join(SAMPLES_DIR), 0, &rows, &[]).unwrap();
    let report = replay_dir(&dir, None).unwrap();
    let ids: Vec<u64> = report.mismatches.iter().map(|m| m.0).collect();
    assert_eq!(ids, [1], "{:?}", report.mismatches);
    for d in [dir, two] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A run whose shard is gone (an interrupted run) resumes to the same files
/// as one run uninterrupted; a stop abandons the shard in flight; another
/// config, or a two-player command, is refused.
#[test]
fn four_player_runs_resume() {
    let (whole, cut) = (fresh("resume-whole"), fresh("resume-cut"));
    let c = config(Mode::Anqi, 6, SamplesPerGame::Count(3));
    run_siguo(&c, &whole, &options(2, None)).unwrap();
    // Stopped before the first shard: nothing written, the run file there.
    let stopped = RunOptions { threads: 1, ..RunOptions::default() };
    stopped.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let s = run_siguo(&c, &cut, &stopped).unwrap();
    assert!(s.interrupted && s.games == 0 && cut.join(RUN_FILE).is_file());
    let first = run_siguo(&c, &cut, &options(1, None)).unwrap();
    assert_eq!((first.games, first.shards_complete, first.shards_total), (6, 3, 3));
    // Shard 1 lost (both files), and a temporary file left behind.
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        std::fs::remove_file(cut.join(sub).join(shard_name(1))).unwrap();
    }
    std::fs::write(cut.join(GAMES_DIR).join(".shard-000001.parquet.tmp"), b"partial").unwrap();
    let resumed = run_siguo(&c, &cut, &options(2, None)).unwrap();
    assert_eq!((resumed.games, resumed.shards, resumed.games_complete), (2, 1, 6));
    assert_eq!(stored(&cut), stored(&whole));
    assert_eq!(replay_dir(&cut, None).unwrap().mismatches.len(), 0);
    let err = run_siguo(&c.clone().with_samples(SamplesPerGame::All), &cut, &options(1, None)).unwrap_err().to_string();
    assert!(err.contains("different config") && err.contains("samples_per_game"), "{err}");
    let err = prepare(Config::new(junqi_core::Rules::default(), 6, ["random", "random"], 1).unwrap(), Some(&cut))
        .unwrap_err()
        .to_string();
    assert!(err.contains("four-player run") && err.contains(SIGUO_RUN_FORMAT), "{err}");
    for d in [whole, cut] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Parts 0/2 and 1/2 merged are the whole run, file for file; parts of a
/// two-player run and a four-player one are refused by name.
#[test]
fn four_player_parts_merge_into_the_whole_run() {
    let (whole, p0, p1, merged) = (fresh("part-whole"), fresh("part-0"), fresh("part-1"), fresh("part-merged"));
    let c = config(Mode::Anqi, 6, SamplesPerGame::Count(2));
    run_siguo(&c, &whole, &options(2, None)).unwrap();
    for (i, dir) in [&p0, &p1].into_iter().enumerate() {
        let part = Part::new(i as u64, 2).unwrap();
        let s = run_siguo(&c, dir, &options(1, Some(part))).unwrap();
        assert_eq!((s.shards_total, s.games_total), ([2, 1][i], [4, 2][i]));
        let err = run_siguo(&c, dir, &options(1, None)).unwrap_err().to_string();
        assert!(err.contains("re-run it as it was"), "{err}");
    }
    let m = merge_parts(&[p1.clone(), p0.clone()], &merged).unwrap();
    assert_eq!((m.parts, m.shards, m.games), (2, 3, 6));
    assert_eq!(stored(&merged), stored(&whole));
    for sub in [GAMES_DIR, SAMPLES_DIR] {
        for s in 0..3 {
            let name = shard_name(s);
            assert_eq!(
                std::fs::read(merged.join(sub).join(&name)).unwrap(),
                std::fs::read(whole.join(sub).join(&name)).unwrap()
            );
        }
    }
    // A two-player part beside a four-player one.
    let two = fresh("part-two");
    let plan = prepare_part(
        Config::new(junqi_core::Rules::default(), 2, ["random", "random"], 1).unwrap(),
        Some(&two),
        Some(Part::new(1, 2).unwrap()),
    )
    .unwrap();
    plan.run(&RunOptions { threads: 1, ..RunOptions::default() }).unwrap();
    drop(plan);
    let err = merge_parts(&[p0.clone(), two.clone()], &fresh("part-mixed")).unwrap_err().to_string();
    assert!(err.contains("four-player run") && err.contains("two-player run"), "{err}");
    for d in [whole, p0, p1, merged, two, fresh("part-mixed")] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The search's samples carry its root visit shares: a distribution over
/// the legal actions whose largest share is the move played; the other
/// team's (random) samples stay one-hot; `junqi replay` accepts both.
#[test]
fn search_samples_hold_the_visit_shares() {
    let dir = fresh("visits");
    let c = SiguoConfig::new(Rules::preset(Mode::Anqi), 2, ["mcts:sims=16".into(), "random".into()], 5)
        .unwrap()
        .with_samples(SamplesPerGame::Count(6));
    run_siguo(&c, &dir, &options(2, None)).unwrap();
    let (games, rows) = stored(&dir);
    let mut spread = 0;
    for s in &rows {
        let game = &games[s.game_id as usize];
        let total: f32 = s.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        let i = s.legal_actions.iter().position(|&a| a == s.action).unwrap();
        if game.bots[s.seat as usize].starts_with("mcts") {
            assert!(s.policy.iter().all(|&p| p <= s.policy[i]), "the move played is the most visited");
            spread += (s.policy.iter().filter(|&&p| p > 0.0).count() > 1) as usize;
        } else {
            assert_eq!(s.policy[i], 1.0);
        }
    }
    assert!(spread > 0, "some search decision weighed several moves");
    assert_eq!(replay_dir(&dir, None).unwrap().mismatches.len(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
