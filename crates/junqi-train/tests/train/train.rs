//! Training on a tiny self-play dataset: the loss goes down, illegal actions
//! get probability 0, checkpoints reload exactly and resume, damaged files
//! give errors (never panics), and Python's `tensorboard` reads the logs.

use crate::common::{dataset, small_config, temp_dir};
use junqi_train::*;
use std::path::Path;
use tch::{Device, Kind, Tensor};

fn loader(seed: u64) -> Loader {
    let window = DataWindow::open(dataset(), 0).unwrap();
    Loader::new(window, 2_000, seed)
}

#[test]
fn the_window_holds_the_newest_games() {
    let all = DataWindow::open(dataset(), 0).unwrap();
    assert_eq!((all.first_game, all.last_game, all.shards.len(), all.channels), (0, 19, 3, 132));
    let newest = DataWindow::open(dataset(), 5).unwrap();
    assert_eq!((newest.first_game, newest.last_game), (15, 19));
    assert_eq!(newest.shards, ["shard-000001.parquet", "shard-000002.parquet"]);
    let mut l = Loader::new(newest, 10_000, 1);
    for _ in 0..500 {
        let e = l.next_example().unwrap();
        assert!((15..=19).contains(&e.game_id));
    }
}

#[test]
fn loss_decreases_on_a_fixed_batch() {
    let config = small_config();
    let batch = loader(3).next_batch(64, Device::Cpu).unwrap();
    let (first, last) = first_and_last_steps(&mut Trainer::new(&config).unwrap(), &batch);
    eprintln!("first {first:?}\nlast {last:?}");
    assert!(last.total_loss < first.total_loss, "{} → {}", first.total_loss, last.total_loss);
    // The policy loss cannot go below the targets' entropy (the random bot's
    // policies are uniform): its excess, the KL divergence, must fall.
    let target_entropy = mean_entropy(&batch.policy);
    let (kl_first, kl_last) = (first.policy_loss - target_entropy, last.policy_loss - target_entropy);
    eprintln!("target entropy {target_entropy}, KL {kl_first} → {kl_last}");
    assert!(kl_last < 0.5 * kl_first, "policy KL {kl_first} → {kl_last}");
    assert!(last.value_loss < 0.5 * first.value_loss, "{} → {}", first.value_loss, last.value_loss);
    for (tag, v) in last.scalars(config.model.belief) {
        assert!(v.is_finite(), "{tag} = {v}");
    }
    assert!(first.grad_norm > 0.0 && first.samples_per_s > 0.0 && first.lr == config.optim.lr);
}

#[test]
fn loss_decreases_with_sgd_and_cosine_too() {
    let mut config = small_config();
    config.optim.optimizer = OptimizerKind::Sgd;
    config.optim.schedule = LrSchedule::Cosine;
    config.optim.lr = 0.05;
    config.optim.warmup_steps = 5;
    let mut t = Trainer::new(&config).unwrap();
    let batch = loader(4).next_batch(64, Device::Cpu).unwrap();
    let first = t.train_step(&batch).unwrap();
    let mut last = first;
    for _ in 0..30 {
        last = t.train_step(&batch).unwrap();
    }
    assert!(last.total_loss < 0.8 * first.total_loss, "{} → {}", first.total_loss, last.total_loss);
    assert!(first.lr < config.optim.lr);
}

#[test]
fn illegal_actions_get_probability_exactly_zero() {
    let mut config = small_config();
    let batch = loader(5).next_batch(128, Device::Cpu).unwrap();
    for seed in 0..3 {
        config.seed = seed;
        let t = Trainer::new(&config).unwrap();
        // Blow the weights up so logits are large, as after long training.
        tch::no_grad(|| {
            for (_, mut v) in t.var_store().variables() {
                let scaled = &v * 30.0;
                v.copy_(&scaled);
            }
        });
        // The stored masks, and random ones (some rows with one legal action).
        let random = Tensor::rand([128, ACTIONS], (Kind::Float, Device::Cpu)).lt(0.01 * (seed + 1) as f64);
        let _ = random.get(0).fill_(0);
        let _ = random.get(0).get(17).fill_(1);
        let stored = batch.legal_mask();
        for legal in [&stored, &random] {
            let (probs, wdl) = t.net().predict(&batch.obs, legal);
            let illegal_mass = probs.masked_select(&legal.logical_not());
            assert_eq!(illegal_mass.abs().max().double_value(&[]), 0.0, "an illegal action got probability");
            let sums: Vec<f32> = Vec::try_from(&probs.sum_dim_intlist(-1, false, Kind::Float)).unwrap();
            assert!(sums.iter().all(|s| (s - 1.0).abs() < 1e-4), "{sums:?}");
            assert!(wdl.isnan().any().int64_value(&[]) == 0);
        }
        let (probs, _) = t.net().predict(&batch.obs, &random);
        assert_eq!(probs.get(0).get(17).double_value(&[]), 1.0);
    }
}

/// 41 steps on one batch: the first step's metrics and the last's.
fn first_and_last_steps(t: &mut Trainer, batch: &Batch) -> (StepMetrics, StepMetrics) {
    let first = t.train_step(batch).unwrap();
    let mut last = first;
    for _ in 0..40 {
        last = t.train_step(batch).unwrap();
    }
    (first, last)
}

/// The mean entropy of the rows of `policy` [B, 3600]: the least policy loss.
fn mean_entropy(policy: &Tensor) -> f64 {
    -(policy * policy.clamp_min(1e-30).log())
        .sum_dim_intlist(-1, false, Kind::Float)
        .mean(Kind::Float)
        .double_value(&[])
}

fn outputs(net: &Net, batch: &Batch) -> (Vec<f32>, Vec<f32>) {
    let (p, v) = net.predict(&batch.obs, &batch.legal_mask());
    (Vec::try_from(&p.reshape([-1])).unwrap(), Vec::try_from(&v.reshape([-1])).unwrap())
}

#[test]
fn a_checkpoint_reloads_to_identical_outputs_and_resumes() {
    let _threads = crate::common::libtorch_threads();
    let dir = temp_dir("ckpt");
    let config = small_config();
    let mut l = loader(6);
    let mut t = Trainer::new(&config).unwrap();
    for _ in 0..5 {
        t.train_step(&l.next_batch(32, Device::Cpu).unwrap()).unwrap();
    }
    let path = dir.join("ckpt.safetensors");
    t.save_checkpoint(&path, Some(l.window())).unwrap();
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with('.')));
    let batch = l.next_batch(64, Device::Cpu).unwrap();

    let (mut r, info) = Trainer::resume(&path, &config).unwrap();
    assert_eq!((info.step, r.step()), (5, 5));
    assert_eq!(info.config.as_ref(), Some(&config));
    assert_eq!(info.data_window.as_ref(), Some(l.window()));
    assert_eq!(outputs(t.net(), &batch), outputs(r.net(), &batch));

    // The optimiser state came back too: the next step is the same step.
    let a = t.train_step(&batch).unwrap();
    let b = r.train_step(&batch).unwrap();
    assert!((a.total_loss - b.total_loss).abs() < 1e-6 && (a.grad_norm - b.grad_norm).abs() < 1e-5, "{a:?} {b:?}");
    assert_eq!(outputs(t.net(), &batch), outputs(r.net(), &batch));

    // Exported weights load with the architecture from the metadata.
    let net_path = dir.join("net.safetensors");
    t.export(&net_path).unwrap();
    let (_vs, net, info) = load_net(&net_path, Device::Cpu).unwrap();
    assert_eq!((info.format.as_str(), &info.model, info.step), (NET_FORMAT, &config.model, 6));
    assert_eq!(outputs(t.net(), &batch), outputs(&net, &batch));
    let (_vs, net, _) = load_net(&path, Device::Cpu).unwrap();
    assert_eq!(outputs(r.net(), &batch).0.len(), outputs(&net, &batch).0.len());

    // Another architecture is refused with a clear message.
    let mut other = config.clone();
    other.model.channels = 8;
    let err = Trainer::resume(&path, &other).err().unwrap().to_string();
    assert!(err.contains("differs"), "{err}");
    let err = Trainer::resume(&net_path, &config).err().unwrap().to_string();
    assert!(err.contains("exported net"), "{err}");

    // `init`: a fresh trainer (step 0, another seed) starts from the
    // exported net's weights, or a checkpoint's; another model is refused.
    for init in [&net_path, &path] {
        let from = TrainConfig { init: Some(init.clone()), seed: 99, ..config.clone() };
        let i = Trainer::initial(&from).unwrap();
        assert_eq!(i.step(), 0);
        let (_vs, net, _) = load_net(init, Device::Cpu).unwrap();
        assert_eq!(outputs(i.net(), &batch), outputs(&net, &batch), "{}", init.display());
    }
    let seeded = Trainer::initial(&TrainConfig { seed: 99, ..config.clone() }).unwrap();
    assert_ne!(outputs(seeded.net(), &batch), outputs(t.net(), &batch), "without init: the seed's weights");
    let err = Trainer::initial(&TrainConfig { init: Some(net_path.clone()), ..other }).err().unwrap().to_string();
    assert!(err.contains("train.init") && err.contains("differs"), "{err}");
}

/// A change to a file's bytes.
type Damage = Box<dyn FnOnce(&mut Vec<u8>)>;

fn damaged(src: &Path, dst: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(src).unwrap();
    f(&mut bytes);
    std::fs::write(dst, bytes).unwrap();
}

#[test]
fn damaged_checkpoints_give_errors() {
    let dir = temp_dir("damaged-ckpt");
    let config = small_config();
    let t = Trainer::new(&config).unwrap();
    let good = dir.join("good.safetensors");
    t.save_checkpoint(&good, None).unwrap();
    let len = std::fs::metadata(&good).unwrap().len() as usize;
    let cases: Vec<(&str, Damage)> = vec![
        ("truncated", Box::new(|b: &mut Vec<u8>| b.truncate(b.len() / 2))),
        ("tiny", Box::new(|b: &mut Vec<u8>| b.truncate(5))),
        ("empty", Box::new(|b: &mut Vec<u8>| b.clear())),
        ("header", Box::new(|b: &mut Vec<u8>| b[20] ^= 0x55)),
        ("data", Box::new(move |b: &mut Vec<u8>| b[len - 100] ^= 0x01)),
        ("length", Box::new(|b: &mut Vec<u8>| b[0..8].copy_from_slice(&u64::MAX.to_le_bytes()))),
    ];
    for (name, f) in cases {
        let bad = dir.join(format!("{name}.safetensors"));
        damaged(&good, &bad, f);
        for err in [
            Trainer::resume(&bad, &config).err().map(|e| e.to_string()),
            load_net(&bad, Device::Cpu).err().map(|e| e.to_string()),
        ] {
            let err = err.unwrap_or_else(|| panic!("{name}: accepted"));
            eprintln!("{name}: {err}");
            assert!(
                err.contains(&bad.display().to_string()) && err.contains("not a usable checkpoint"),
                "{name}: {err}"
            );
        }
    }
    assert!(Trainer::resume(&dir.join("missing.safetensors"), &config).is_err());
}

#[test]
fn damaged_shards_give_errors() {
    let src = dataset().join("samples");
    let run = |name: &str, f: Damage| -> String {
        let dir = temp_dir(&format!("damaged-shard-{name}"));
        let samples = dir.join("samples");
        std::fs::create_dir_all(&samples).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, samples.join(p.file_name().unwrap())).unwrap();
        }
        let victim = samples.join("shard-000001.parquet");
        damaged(&victim.clone(), &victim, f);
        let result = DataWindow::open(&dir, 0).and_then(|w| {
            let mut l = Loader::new(w, 100_000, 0);
            l.next_batch(16, Device::Cpu).map(|_| ())
        });
        let err = result.err().unwrap_or_else(|| panic!("{name}: accepted")).to_string();
        eprintln!("{name}: {err}");
        assert!(err.contains("shard-000001.parquet"), "{name}: {err}");
        err
    };
    run("truncated", Box::new(|b: &mut Vec<u8>| b.truncate(b.len() - 30)));
    run("empty", Box::new(|b: &mut Vec<u8>| b.clear()));
    // Garbage in the middle of the data pages (the footer still reads).
    run(
        "garbage",
        Box::new(|b: &mut Vec<u8>| {
            let n = b.len();
            for x in &mut b[100..n / 2] {
                *x = 0xA5;
            }
        }),
    );
    let empty = temp_dir("no-shards");
    assert!(DataWindow::open(&empty, 0).err().unwrap().to_string().contains("no samples shards"));
}

#[test]
fn train_resumes_and_tensorboard_reads_the_tags() {
    let out = temp_dir("driver");
    let mut config = small_config();
    config.optim.steps = 6;
    config.log_every = 2;
    config.checkpoint_every = 4;
    config.keep_checkpoints = 2;
    let tb = out.join(TB_DIR);
    {
        let mut metrics = TensorBoardMetrics::for_run(&out).unwrap();
        let s = train(&config, dataset(), &out, &mut metrics).unwrap();
        assert_eq!((s.resumed_from.is_none(), s.start_step, s.end_step, s.samples), (true, 0, 6, 6 * 32));
        eprintln!("{:.0} samples/s", s.samples_per_s);
    }
    let ckpts = out.join(CHECKPOINT_DIR);
    assert_eq!(latest_checkpoint(&ckpts).unwrap().unwrap(), ckpts.join("ckpt-000000006.safetensors"));
    // A longer run continues from step 6; only the newest 2 checkpoints stay.
    config.optim.steps = 10;
    let mut memory = MemoryMetrics::default();
    let s = train(&config, dataset(), &out, &mut memory).unwrap();
    assert_eq!((s.start_step, s.end_step), (6, 10));
    assert_eq!(s.resumed_from.unwrap(), ckpts.join("ckpt-000000006.safetensors"));
    assert_eq!(memory.series["loss/total"].iter().map(|p| p.0).collect::<Vec<_>>(), [8, 10]);
    // No belief head: no flat `loss/belief` line, in training or validation.
    assert!(!config.model.belief);
    assert!(memory.series.keys().all(|t| !t.contains("belief")), "{:?}", memory.series.keys());
    let names: Vec<String> = {
        let mut v: Vec<_> =
            std::fs::read_dir(&ckpts).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    };
    assert_eq!(names, ["ckpt-000000008.safetensors", "ckpt-000000010.safetensors"]);
    // Nothing left to do: no step, no new checkpoint.
    let s = train(&config, dataset(), &out, &mut NoMetrics).unwrap();
    assert_eq!((s.start_step, s.end_step, s.samples), (10, 10, 0));

    let export = out.join("net.safetensors");
    Trainer::resume(&ckpts.join("ckpt-000000010.safetensors"), &config).unwrap().0.export(&export).unwrap();
    python_reads(&tb, &export, &config.model);
}

/// Python's `tensorboard` finds every tag; the snippet of docs/training.md loads the export.
fn python_reads(tb: &Path, export: &Path, model: &ModelConfig) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let pythonpath = root.join(".deps/python");
    let python = |script: &str| {
        std::process::Command::new("python3")
            .env("PYTHONPATH", &pythonpath)
            .arg("-c")
            .arg(script)
            .arg(tb)
            .arg(export)
            .output()
    };
    match python("import tensorboard, numpy") {
        Ok(o) if o.status.success() => {}
        _ => {
            eprintln!(
                "note: skipping the Python checks: python3 with tensorboard and numpy not found (run scripts/setup.sh)"
            );
            return;
        }
    }
    let script = r#"
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1]); acc.Reload()
tags = acc.Tags()["scalars"]
print(json.dumps({t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags}))
"#;
    let out = python(script).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scalars: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for tag in [
        "loss/policy",
        "loss/value",
        "loss/total",
        "policy/entropy",
        "policy/accuracy",
        "value/accuracy",
        "train/lr",
        "train/grad_norm",
        "train/samples_per_s",
    ] {
        let steps: Vec<u64> = scalars[tag]
            .as_array()
            .unwrap_or_else(|| panic!("no {tag} in {scalars}"))
            .iter()
            .map(|p| p[0].as_u64().unwrap())
            .collect();
        assert_eq!(steps, [2, 4, 6], "{tag}");
    }
    assert!(scalars.get("loss/belief").is_none(), "a net without a belief head logs no loss/belief");
    eprintln!("python tensorboard read {} scalar tags", scalars.as_object().unwrap().len());
    // The numpy-only loader of docs/training.md.
    let doc = std::fs::read_to_string(root.join("docs/training.md")).unwrap();
    let snippet = doc.split("```python\n").nth(1).unwrap().split("```").next().unwrap();
    let script = format!(
        "{snippet}\nimport sys, json\nt, meta = load_safetensors(sys.argv[2])\nprint(json.dumps({{'arch': json.loads(meta['architecture']), 'shapes': {{k: list(v.shape) for k, v in t.items()}}}}))\n"
    );
    let out = python(&script).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["arch"], serde_json::to_value(model).unwrap());
    assert_eq!(got["shapes"]["stem.conv.weight"], serde_json::json!([16, junqi_env::OBS_CHANNELS, 3, 3]));
    assert_eq!(got["shapes"]["policy.weight"], serde_json::json!([60, 16, 1, 1]));
}

#[test]
fn the_bilinear_head_learns_and_reloads_and_older_nets_load_as_conv() {
    let dir = temp_dir("bilinear");
    let mut config = small_config();
    config.model.policy_head = PolicyHead::Bilinear;
    let mut t = Trainer::new(&config).unwrap();
    let batch = loader(8).next_batch(64, Device::Cpu).unwrap();
    let (first, last) = first_and_last_steps(&mut t, &batch);
    let target_entropy = mean_entropy(&batch.policy);
    let (kl_first, kl_last) = (first.policy_loss - target_entropy, last.policy_loss - target_entropy);
    assert!(kl_last < 0.5 * kl_first, "policy KL {kl_first} → {kl_last}");

    let path = dir.join("net.safetensors");
    t.export(&path).unwrap();
    let (_vs, net, info) = load_net(&path, Device::Cpu).unwrap();
    assert_eq!(info.model.policy_head, PolicyHead::Bilinear);
    assert_eq!(outputs(t.net(), &batch), outputs(&net, &batch));
    // A bilinear checkpoint does not resume as a conv one.
    t.save_checkpoint(&dir.join("ckpt.safetensors"), None).unwrap();
    let mut conv = config.clone();
    conv.model.policy_head = PolicyHead::Conv;
    assert!(Trainer::resume(&dir.join("ckpt.safetensors"), &conv).is_err());

    // The one-hour loop's net predates the key: it is a conv head. The
    // shipped default is bilinear.
    let nets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/nets");
    let (_vs, _net, info) = load_net(&nets.join("fanqi-1h/net-012.safetensors"), Device::Cpu).unwrap();
    assert_eq!(info.model.policy_head, PolicyHead::Conv);
    let (_vs, _net, info) = load_net(&nets.join("fanqi-1h-bilinear.safetensors"), Device::Cpu).unwrap();
    assert_eq!(info.model.policy_head, PolicyHead::Bilinear);
    std::fs::remove_dir_all(dir).unwrap();
}

/// One game in `validation_every` is held out: the loader never yields it,
/// the validation set holds only such games, and the validation metrics are
/// logged (as `val/...`) during training and at the end.
#[test]
fn held_out_games_are_never_trained_on_and_give_the_validation_loss() {
    let every = 4;
    let window = DataWindow::open(dataset(), 0).unwrap();
    let mut l = Loader::new(window.clone(), 100_000, 1).holding_out(every);
    for _ in 0..3_000 {
        let e = l.next_example().unwrap();
        assert!(!held_out(e.game_id, every), "game {} is held out", e.game_id);
    }
    let set = Loader::validation_set(&window, every, 300, 5).unwrap();
    assert_eq!(set.len(), 300);
    assert!(set.iter().all(|e| held_out(e.game_id, every)));
    assert_eq!(set, Loader::validation_set(&window, every, 300, 5).unwrap(), "the same set every time");

    let mut config = small_config();
    config.data.validation_every = every;
    config.data.validation_samples = 300;
    config.validate_every = 15;
    let out = temp_dir("validation");
    let mut memory = MemoryMetrics::default();
    let s = train(&config, dataset(), &out, &mut memory).unwrap();
    let v = s.validation.expect("a validation ran");
    assert_eq!(s.validation_positions, 300);
    assert!(v.total_loss.is_finite() && v.policy_loss > 0.0);
    let steps: Vec<u64> = memory.series["val/loss_total"].iter().map(|&(step, _)| step).collect();
    assert_eq!(steps, vec![15, 30, 40]);
    assert!(memory.series.contains_key("val/policy_accuracy"));
}

/// `data.value_target_search` reaches the value loss and nothing else: on
/// the same positions of games whose searching bot stored its values, the
/// same net's policy loss is unchanged and its value loss is not.
#[test]
fn the_search_value_share_changes_the_value_target_alone() {
    let dir = temp_dir("searched");
    let config =
        junqi_selfplay::Config::new(junqi_core::Rules::preset(junqi_core::Mode::Fanqi), 4, ["mcts:sims=16"; 2], 3)
            .unwrap()
            .with_shard_games(2);
    let options = junqi_selfplay::RunOptions { threads: 2, ..Default::default() };
    junqi_selfplay::prepare(config, Some(&dir)).unwrap().run(&options).unwrap();
    let batch_with = |share: f64| {
        let window = DataWindow::open(&dir, 0).unwrap();
        Loader::new(window, 2_000, 9).with_value_target_search(share).next_batch(64, Device::Cpu).unwrap()
    };
    let (outcome, mixed) = (batch_with(0.0), batch_with(1.0));
    assert!(outcome.value_target.is_none() && mixed.value_target.is_some());
    let trainer = Trainer::new(&small_config()).unwrap();
    let (a, b) = (trainer.evaluate(&outcome).unwrap(), trainer.evaluate(&mixed).unwrap());
    assert_eq!(a.policy_loss, b.policy_loss);
    assert!((a.value_loss - b.value_loss).abs() > 1e-4, "{} vs {}", a.value_loss, b.value_loss);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A net made before the history planes (100) or the rule-state planes
/// (110) starts a 132-plane net that answers exactly as it did (zero weights
/// from the new planes), and a model that differs otherwise is still refused.
#[test]
fn an_older_net_starts_one_that_reads_the_newer_planes() {
    let dir = temp_dir("widen");
    for from in [junqi_env::V1_CHANNELS, junqi_env::V2_CHANNELS] {
        let mut old_config = small_config();
        old_config.model.in_channels = from;
        let old = Trainer::new(&old_config).unwrap();
        let old_file = dir.join(format!("old-{from}.safetensors"));
        old.export(&old_file).unwrap();

        let mut config = small_config();
        config.seed = 99; // different initial weights: all must come from the file
        config.init = Some(old_file.clone());
        assert_eq!(config.model.in_channels, junqi_env::OBS_CHANNELS);
        let new = Trainer::initial(&config).unwrap();
        let obs = Tensor::rand([4, junqi_env::OBS_CHANNELS as i64, 12, 5], (Kind::Float, Device::Cpu)).round();
        let (p_old, v_old) = old.net().forward_t(&obs, false);
        let (p_new, v_new) = new.net().forward_t(&obs, false);
        let diff = (&p_old - &p_new).abs().max().double_value(&[]) + (&v_old - &v_new).abs().max().double_value(&[]);
        assert!(diff < 1e-5, "the widened net answers as the old one ({from} planes): {diff}");
        // The new planes matter to it only once it learns to use them.
        let stem = new.var_store().variables()["stem.conv.weight"].shallow_clone();
        assert_eq!(stem.size(), [16, junqi_env::OBS_CHANNELS as i64, 3, 3]);
        let added = stem.narrow(1, from as i64, (junqi_env::OBS_CHANNELS - from) as i64);
        assert_eq!(added.abs().sum(Kind::Float).double_value(&[]), 0.0);
        assert!(stem.narrow(1, 0, from as i64).abs().sum(Kind::Float).double_value(&[]) > 0.0);

        config.model.channels = 8;
        assert!(Trainer::initial(&config).is_err(), "another shape is refused");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A net trained from `init` keeps the init's learned deployment model
/// (training fits none), so it deploys as its init did; a net with no
/// init, or an init without one, has none.
#[test]
fn a_net_trained_from_init_keeps_its_deployment_model() {
    let dir = temp_dir("keep-deploy");
    let init = dir.join("init.safetensors");
    Trainer::new(&small_config()).unwrap().export(&init).unwrap();
    let deployment = |path: &Path| junqi_net::NetFile::read(path).unwrap().deployment_model().unwrap();
    assert_eq!(deployment(&init), None);
    let mut model = junqi_bots::DeploymentModel::uniform();
    model.weights.iter_mut().enumerate().for_each(|(i, w)| *w = (i % 7) as f32 * 0.1 - 0.3);
    model.bias = 0.25;
    let mut file = junqi_net::NetFile::read(&init).unwrap();
    file.set_deployment_model(&model);
    file.write(&init).unwrap();

    let mut config = small_config();
    config.init = Some(init.clone());
    let out = dir.join("out.safetensors");
    Trainer::initial(&config).unwrap().export(&out).unwrap();
    assert_eq!(deployment(&out), Some(model));
    config.init = None;
    let plain = dir.join("plain.safetensors");
    Trainer::initial(&config).unwrap().export(&plain).unwrap();
    assert_eq!(deployment(&plain), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The configs of the nets made before the history or the rule-state
/// planes still make them from today's data: 100- and 110-plane models
/// train on 132-plane samples.
#[test]
fn a_model_without_history_planes_trains_on_todays_data() {
    let mut config = small_config();
    config.optim.steps = 5;
    config.checkpoint_every = 0;
    for width in [junqi_env::V1_CHANNELS, junqi_env::V2_CHANNELS] {
        config.model.in_channels = width;
        let dir = temp_dir(&format!("v1-model-{width}"));
        let summary = train(&config, dataset(), &dir, &mut NoMetrics).unwrap();
        let net = summary.checkpoint.unwrap();
        assert_eq!(read_metadata(&net).unwrap().model.in_channels, width);
    }
    config.model.in_channels = 50;
    assert!(train(&config, dataset(), &temp_dir("v1-model-bad"), &mut NoMetrics).is_err());
}
