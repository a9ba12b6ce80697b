//! Writes docs/siguo-board.svg from the board tables (docs/rules.md §10.1).

fn main() -> std::io::Result<()> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/siguo-board.svg");
    std::fs::write(&path, junqi_siguo::svg::board_svg())?;
    println!("wrote {}", path.display());
    Ok(())
}
