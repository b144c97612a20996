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
    /// Where the barrier goes in the function.
    pub point: IrPoint,
}

/// A point between two statements of a function, in naga's IR of the source as parsed:
/// before statement `index` of the block `path` leads to, or at its end when `index` is the
/// block's length. Each step of `path` is a statement's index in its block and which of the
/// blocks nested in it holds the point (an `if`'s accept then reject, a `switch`'s cases in
/// order, a loop's body then continuing). A site at a point inside a non-uniform branch that
/// was split (split.rs) names the point in the branch as parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IrPoint {
    pub path: Vec<(usize, usize)>,
    pub index: usize,
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
