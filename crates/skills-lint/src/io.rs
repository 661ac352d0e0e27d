//! Reading the files of a skill, bounded by what the walk already knows.

use std::path::Path;

use skills_frontmatter::MAX_FILE_BYTES;

/// Reads a file whose size the walk already knows, and never more than one byte past
/// [`MAX_FILE_BYTES`] (a file that grew since the walk is then refused by the parser, not
/// read whole). `std::fs::read` would ask the file system for the size again: one `statx`
/// per file, a measurable share of a run over a large tree.
pub(crate) fn read_sized(path: &Path, size: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let cap = size.min(MAX_FILE_BYTES).saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(cap).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}
