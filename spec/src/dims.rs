//! Workgroup counts as a spec writes them: one to three sizes, each at least 1.

/// `[x]`, `[x, y]` or `[x, y, z]` as three sizes (the missing ones 1), or what is wrong.
pub fn dims(values: &[u32]) -> Result<[u32; 3], String> {
    if values.is_empty() || values.len() > 3 {
        return Err(format!("give 1 to 3 sizes, not {}", values.len()));
    }
    if values.contains(&0) {
        return Err("every size must be at least 1".into());
    }
    let mut out = [1; 3];
    out[..values.len()].copy_from_slice(values);
    Ok(out)
}
