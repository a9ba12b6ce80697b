//! Resuming past a damaged checkpoint: when the newest checkpoint does not
//! read or check (truncated, a flipped data byte, an edited `step` or
//! `optimizer_updates`, a step that is not its name's), training says so,
//! renames it aside to `<name>.corrupt` and resumes from the newest intact
//! one; with none intact it stops with an error. And the net files'
//! expected tensors (`junqi_net`) are the variables `Net` creates.

use crate::common::{dataset, small_config, temp_dir};
use junqi_net::NetFile;
use junqi_train::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Collects the warnings.
#[derive(Default)]
struct Warnings(Vec<String>);

impl TrainObserver for Warnings {
    fn warning(&mut self, message: &str) {
        eprintln!("warning: {message}");
        self.0.push(message.to_string());
    }
}

fn config(steps: u64) -> TrainConfig {
    let mut c = small_config();
    c.optim.steps = steps;
    c.checkpoint_every = 2;
    c.keep_checkpoints = 0;
    c.log_every = 0;
    c
}

fn run(out: &Path, steps: u64) -> (Result<TrainSummary>, Vec<String>) {
    let mut warnings = Warnings::default();
    let r = train_until(&config(steps), dataset(), out, &mut NoMetrics, &mut warnings, &AtomicBool::new(false));
    (r, warnings.0)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A run directory with checkpoints at steps 2 and 4 (made once).
fn trained() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let out = temp_dir("ckpt-base");
        let s = run(&out, 4).0.unwrap();
        assert_eq!((s.start_step, s.end_step), (0, 4));
        assert_eq!(names(&out.join(CHECKPOINT_DIR)), ["ckpt-000000002.safetensors", "ckpt-000000004.safetensors"]);
        out
    })
}

/// A copy of [`trained`]'s checkpoints in a fresh run directory.
fn copy(name: &str) -> (PathBuf, PathBuf) {
    let out = temp_dir(name);
    let ckpts = out.join(CHECKPOINT_DIR);
    std::fs::create_dir_all(&ckpts).unwrap();
    for n in names(&trained().join(CHECKPOINT_DIR)) {
        std::fs::copy(trained().join(CHECKPOINT_DIR).join(&n), ckpts.join(&n)).unwrap();
    }
    (out, ckpts)
}

/// `bytes` with `from` replaced by `to` (same length) in the header.
fn replaced(bytes: &mut [u8], from: &str, to: &str) {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let at = bytes[8..8 + n].windows(from.len()).position(|w| w == from.as_bytes()).expect(from);
    bytes[8 + at..8 + at + to.len()].copy_from_slice(to.as_bytes());
}

type Damage = Box<dyn Fn(&mut Vec<u8>)>;

#[test]
fn a_damaged_newest_checkpoint_falls_back_to_the_previous_one() {
    let cases: Vec<(&str, Damage, &str)> = vec![
        ("truncated", Box::new(|b: &mut Vec<u8>| b.truncate(b.len() - 1000)), "not a valid safetensors file"),
        (
            "data",
            Box::new(|b: &mut Vec<u8>| {
                let n = b.len();
                b[n - 100] ^= 0x01
            }),
            "checksum",
        ),
        ("step", Box::new(|b: &mut Vec<u8>| replaced(b, r#""step":"4""#, r#""step":"5""#)), "checksum_fnv1a64"),
        (
            "updates",
            Box::new(|b: &mut Vec<u8>| replaced(b, r#""optimizer_updates":"4""#, r#""optimizer_updates":"3""#)),
            "checksum_fnv1a64",
        ),
        // Intact, but the step-2 checkpoint under step 4's name.
        (
            "renamed",
            Box::new(|b: &mut Vec<u8>| {
                *b = std::fs::read(trained().join(CHECKPOINT_DIR).join("ckpt-000000002.safetensors")).unwrap()
            }),
            "its metadata says step 2, its name step 4",
        ),
    ];
    for (name, damage, reason) in cases {
        let (out, ckpts) = copy(&format!("ckpt-{name}"));
        let newest = ckpts.join("ckpt-000000004.safetensors");
        let mut bytes = std::fs::read(&newest).unwrap();
        damage(&mut bytes);
        std::fs::write(&newest, bytes).unwrap();

        let (s, warnings) = run(&out, 6);
        let s = s.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.resumed_from.as_deref(), Some(ckpts.join("ckpt-000000002.safetensors").as_path()), "{name}");
        assert_eq!((s.start_step, s.end_step), (2, 6), "{name}");
        assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        let w = &warnings[0];
        assert!(
            w.contains(&newest.display().to_string())
                && w.contains(reason)
                && w.contains("ckpt-000000004.safetensors.corrupt")
                && w.contains("resuming from"),
            "{name}: {w}"
        );
        // Set aside, and a fresh step-4 checkpoint written in its place.
        assert_eq!(
            names(&ckpts),
            [
                "ckpt-000000002.safetensors",
                "ckpt-000000004.safetensors",
                "ckpt-000000004.safetensors.corrupt",
                "ckpt-000000006.safetensors"
            ],
            "{name}"
        );
        assert_eq!(read_metadata(&newest).unwrap().step, 4, "{name}");
        // The next run resumes from the newest without a word.
        let (s, warnings) = run(&out, 8);
        assert_eq!((s.unwrap().start_step, warnings.len()), (6, 0), "{name}");
        std::fs::remove_dir_all(out).unwrap();
    }
}

#[test]
fn with_no_intact_checkpoint_the_resume_stops() {
    let (out, ckpts) = copy("ckpt-none");
    for n in names(&ckpts) {
        let p = ckpts.join(n);
        let len = std::fs::metadata(&p).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(len / 2).unwrap();
    }
    let (r, warnings) = run(&out, 6);
    let e = r.expect_err("resumed from a damaged checkpoint").to_string();
    eprintln!("{e}");
    assert!(e.contains("no intact checkpoint") && e.contains("ckpt-000000002") && e.contains("ckpt-000000004"), "{e}");
    assert!(warnings.is_empty());
    // Nothing renamed: the next run says the same.
    assert_eq!(names(&ckpts), ["ckpt-000000002.safetensors", "ckpt-000000004.safetensors"]);
    std::fs::remove_dir_all(out).unwrap();
}

/// `NetFile::expected_tensors` (what a net file must hold) is what `Net`
/// creates, for every head.
#[test]
fn the_expected_tensors_are_the_nets_variables() {
    for policy_head in [PolicyHead::Conv, PolicyHead::Bilinear] {
        for belief in [false, true] {
            for blocks in [0, 2] {
                let model =
                    ModelConfig { blocks, channels: 8, value_hidden: 16, policy_head, belief, ..Default::default() };
                let vs = tch::nn::VarStore::new(tch::Device::Cpu);
                let _net = Net::new(&vs.root(), &model);
                let vars: std::collections::BTreeMap<String, Vec<usize>> = vs
                    .variables()
                    .into_iter()
                    .map(|(n, t)| (n, t.size().iter().map(|&d| d as usize).collect()))
                    .collect();
                assert_eq!(vars, NetFile::expected_tensors(&model), "{model:?}");
            }
        }
    }
}
