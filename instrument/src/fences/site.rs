//! What the site analysis reports: each candidate site, and the accesses where no site can go.

/// Which side of the access a site is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Before,
    After,
}

/// One candidate site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceSite {
    pub id: u32,
    /// Before or after the access.
    pub side: Side,
    /// The function the site is in.
    pub function: String,
    /// The access's 1-based line and column in the source.
    pub line: u32,
    pub column: u32,
}

/// A storage access inside a loop that is not uniform inside (invocations leave it at
/// different times): WGSL allows no barrier between its accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InLoop {
    pub function: String,
    /// The loop's first storage access, 1-based.
    pub line: u32,
    pub column: u32,
}
