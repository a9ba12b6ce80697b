//! `junqi reanalyse`: a four-player run's positions relabelled by another
//! bot. Relabelled by the very net that played them, team A's samples come
//! back exactly as stored; relabelled by the search on team B's quiet
//! positions, each sample keeps its stored position, move and outcome and
//! takes the search's visit shares (with `--one-hot`, its choice; with
//! `--keep-stored`, beside the team's own samples below the quiet limit,
//! which train with another run as one dataset).
//! Re-running resumes; another
//! reanalysis into the same folder and bad flags are refused.

use super::{junqi, stdout};
use junqi_net::{ModelConfig, NetFile, NetGame};
use junqi_selfplay::{read_siguo_samples_file, shard_files, SiguoSample, SAMPLES_DIR};
use junqi_siguo::SiguoCode;
use std::path::Path;

fn samples(run: &Path) -> Vec<SiguoSample> {
    let files = shard_files(&run.join(SAMPLES_DIR)).unwrap();
    files.iter().flat_map(|f| read_siguo_samples_file(f).unwrap()).collect()
}

fn team_a(s: &SiguoSample) -> bool {
    s.seat as u64 % 2 == s.game_id % 2
}

#[test]
fn reanalyse_relabels_chosen_positions_with_the_bots_policy() {
    let dir = std::env::temp_dir().join(format!("junqi-cli-siguo-reanalyse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let net_path = dir.join("siguo.safetensors");
    let model = ModelConfig { blocks: 1, channels: 16, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
    NetFile::random_for(&model, NetGame::Siguo, 7).write(&net_path).unwrap();
    let net_bot = format!("net:{}", net_path.display());
    let run = dir.join("run");
    let bots = format!("{net_bot},random");
    // Two shards, so each is matched with its own samples shard.
    let args = ["selfplay", "--siguo", "--bots", &bots, "--games", "4", "--shard-games", "2", "--set", "max_plies=80"];
    stdout(&junqi(&[&args[..], &["--out", run.to_str().unwrap()]].concat()));
    let stored = samples(&run);
    let reanalyse_with = |bot: &str, seats: &str, quiet: &str, out: &Path, more: &[&str]| {
        let args = ["reanalyse", "--data", run.to_str().unwrap(), "--bot", bot, "--seats", seats, "--min-quiet", quiet];
        junqi(&[&args[..], more, &["--threads", "2", "--out", out.to_str().unwrap()]].concat())
    };
    let reanalyse = |bot: &str, seats: &str, quiet: &str, out: &Path| reanalyse_with(bot, seats, quiet, out, &[]);

    // The net that played team A relabels its positions as it played them.
    let same = dir.join("same");
    let text = stdout(&reanalyse(&net_bot, "a", "0", &same));
    assert!(text.contains("reanalysed 4 games (2 shards)"), "{text}");
    let want: Vec<&SiguoSample> = stored.iter().filter(|s| team_a(s)).collect();
    let got = samples(&same);
    assert!(!want.is_empty());
    assert_eq!(got.iter().collect::<Vec<_>>(), want);

    // The search on team B's quiet positions: stored positions, its visit shares.
    let quiet = 4;
    let searched = dir.join("searched");
    stdout(&reanalyse("mcts:sims=8", "b", &quiet.to_string(), &searched));
    let got = samples(&searched);
    let quiet_of = |s: &SiguoSample| SiguoCode::from_bytes(&s.code).unwrap().quiet;
    let want: Vec<&SiguoSample> = stored.iter().filter(|s| !team_a(s) && quiet_of(s) >= quiet).collect();
    assert!(!want.is_empty() && want.len() < stored.iter().filter(|s| !team_a(s)).count());
    assert_eq!(got.len(), want.len());
    let mut relabelled = 0;
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.game_id, g.ply, g.seat, &g.code), (w.game_id, w.ply, w.seat, &w.code));
        assert_eq!((&g.legal_actions, g.action, g.outcome), (&w.legal_actions, w.action, w.outcome));
        assert_eq!((&g.termination, &g.hidden_kinds), (&w.termination, &w.hidden_kinds));
        assert!((g.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(g.policy.iter().all(|p| (p * 8.0 - (p * 8.0).round()).abs() < 1e-4), "{:?}", g.policy);
        relabelled += (g.policy != w.policy) as usize;
    }
    assert!(relabelled > 0, "random's one-hot targets became the search's");
    assert!(got.iter().any(|g| g.policy.iter().filter(|&&p| p > 0.0).count() > 1), "visit shares, not one-hot");

    // --one-hot: the same positions, each target one-hot on the search's choice.
    let chosen = dir.join("chosen");
    stdout(&reanalyse_with("mcts:sims=8", "b", &quiet.to_string(), &chosen, &["--one-hot"]));
    let one_hot = samples(&chosen);
    assert_eq!(one_hot.len(), got.len());
    for (o, g) in one_hot.iter().zip(&got) {
        assert_eq!((o.game_id, o.ply, &o.code, o.action), (g.game_id, g.ply, &g.code, g.action));
        assert_eq!(o.policy.iter().filter(|&&p| p == 1.0).count(), 1, "{:?}", o.policy);
        assert_eq!(o.policy.iter().sum::<f32>(), 1.0);
        // The same search from the same stream: its choice is one of its most visited moves.
        let hot = o.policy.iter().position(|&p| p == 1.0).unwrap();
        let most = g.policy.iter().copied().fold(0.0, f32::max);
        assert_eq!(g.policy[hot], most, "game {} ply {}", g.game_id, g.ply);
    }
    assert!(one_hot.iter().zip(&want).any(|(o, w)| o.policy != w.policy), "the search's choices, not the moves played");

    // --keep-stored: the same choices, and team B's own samples below the
    // quiet limit as stored: every team B position, in order, trained as one
    // dataset with another run (`train --data A --data B`).
    let whole = dir.join("whole");
    stdout(&reanalyse_with("mcts:sims=8", "b", &quiet.to_string(), &whole, &["--one-hot", "--keep-stored"]));
    let kept = samples(&whole);
    let team_b: Vec<&SiguoSample> = stored.iter().filter(|s| !team_a(s)).collect();
    assert_eq!(kept.len(), team_b.len());
    for (k, s) in kept.iter().zip(&team_b) {
        assert_eq!((k.game_id, k.ply, &k.code), (s.game_id, s.ply, &s.code));
        if quiet_of(s) < quiet {
            assert_eq!(k, *s, "kept as stored");
        }
    }
    let above: Vec<SiguoSample> = kept.iter().filter(|k| quiet_of(k) >= quiet).cloned().collect();
    assert_eq!(above, one_hot, "the relabelled ones as without --keep-stored");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/train/siguo-small.toml");
    let train = dir.join("train");
    let args = ["--device", "cpu", "train", "--config", config, "--data", whole.to_str().unwrap(), "--data"];
    let tiny = ["--steps", "2", "--batch-size", "8", "--set", "model.blocks=1", "--set", "model.channels=8"];
    let out = [same.to_str().unwrap(), "--out", train.to_str().unwrap(), "--set", "validate_every=0"];
    let text = stdout(&junqi(&[&args[..], &out, &tiny].concat()));
    assert!(text.contains("trained steps 0..2"), "{text}");
    // Without the run's samples/ (an arena's output has none) it is refused before --out is claimed.
    let games_only = dir.join("games-only");
    std::fs::create_dir_all(games_only.join("games")).unwrap();
    for f in shard_files(&run.join("games")).unwrap() {
        std::fs::copy(&f, games_only.join("games").join(f.file_name().unwrap())).unwrap();
    }
    let args = ["reanalyse", "--data", games_only.to_str().unwrap(), "--bot", "random", "--keep-stored", "--out"];
    let bad = junqi(&[&args[..], &[dir.join("unclaimed").to_str().unwrap()]].concat());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && err.contains("--keep-stored") && !err.contains("panicked"), "{err}");
    assert!(!dir.join("unclaimed").exists());
    // With samples that are not these games' (shard 1's beside games shard 0), it is refused.
    let stored_shards = shard_files(&run.join(SAMPLES_DIR)).unwrap();
    std::fs::create_dir_all(games_only.join(SAMPLES_DIR)).unwrap();
    for (from, to) in [(1, 0), (1, 1)] {
        std::fs::copy(&stored_shards[from], games_only.join(SAMPLES_DIR).join(stored_shards[to].file_name().unwrap()))
            .unwrap();
    }
    let bad = junqi(&[&args[..], &[dir.join("mismatched").to_str().unwrap()]].concat());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && err.contains("holds game 2") && !err.contains("panicked"), "{err}");

    // Again: the finished shard is kept; another reanalysis there is refused.
    let again = reanalyse("mcts:sims=8", "b", &quiet.to_string(), &searched);
    assert!(String::from_utf8_lossy(&again.stderr).contains("resumed: 2 shard"));
    assert_eq!(samples(&searched), got);
    let other = reanalyse("mcts:sims=9", "b", &quiet.to_string(), &searched);
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(!other.status.success() && err.contains("holds another run"), "{err}");
    for (bot, seats, why) in [("mcts", "c", "--seats `c`"), ("nobot", "a", "unknown four-player bot `nobot`")] {
        let bad = reanalyse(bot, seats, "0", &dir.join("bad"));
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(!bad.status.success() && err.contains(why) && !err.contains("panicked"), "{err}");
    }
    // A --data that holds no four-player games is refused before --out is claimed.
    let two = dir.join("two-player");
    stdout(&junqi(&["selfplay", "--bots", "random", "--games", "2", "--out", two.to_str().unwrap()]));
    let claimed = dir.join("claimed");
    for data in [two.clone(), run.join(SAMPLES_DIR), dir.join("missing")] {
        let args = ["reanalyse", "--data", data.to_str().unwrap(), "--bot", "random", "--out"];
        let bad = junqi(&[&args[..], &[claimed.to_str().unwrap()]].concat());
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(!bad.status.success() && err.contains("selfplay --siguo") && !err.contains("panicked"), "{err}");
    }
    stdout(&reanalyse("random", "all", "0", &claimed));
    assert_eq!(samples(&claimed).len(), stored.len(), "--seats all --min-quiet 0: every position");
    // An --out that holds something else is refused.
    let busy = dir.join("busy");
    std::fs::create_dir_all(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), "mine").unwrap();
    let err = String::from_utf8_lossy(&reanalyse("random", "all", "0", &busy).stderr).to_string();
    assert!(err.contains("not empty and holds no reanalysis"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
