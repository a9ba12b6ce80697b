//! `junqi sign-net FILE...`: add the checksum over the metadata to net files
//! and checkpoints written before it existed, so an edited architecture or
//! step can no longer slip through. The tensors are kept bit for bit.
//! Nets of either game (two-player, 四国) are signed.

use anyhow::{bail, Result};
use junqi_net::NetFile;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Net files or checkpoints (`.safetensors`) to re-sign in place.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    for path in &args.files {
        let before = NetFile::resign(path)?;
        // The game the file names (a two-player net or checkpoint, or a four-player net).
        let after = NetFile::read_game(path, before.game)?;
        // Same tensors, bit for bit (the rewrite is atomic, so on a
        // mismatch the signed file is what is on disk: say so loudly).
        let bits = |f: &NetFile| {
            let mut t: Vec<(String, Vec<usize>, Vec<u32>)> = f
                .tensors
                .iter()
                .map(|(n, (s, v))| (n.clone(), s.clone(), v.iter().map(|x| x.to_bits()).collect()))
                .collect();
            t.sort();
            t
        };
        if bits(&before) != bits(&after) || before.model != after.model || before.step != after.step {
            bail!("{}: re-signing changed the net; restore it from a copy", path.display());
        }
        writeln!(out, "{}: signed ({} tensors unchanged)", path.display(), after.tensors.len())?;
    }
    Ok(())
}
