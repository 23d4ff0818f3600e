//! Check sites: what each numbered place in a kernel checks. The compiler numbers the sites
//! and writes a table of them into the generated code; the runtime turns a fault record's site
//! number back into the array, the check and the user's line.

/// What a site checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SiteKind {
    /// An array element read, `a[i]`.
    Read,
    /// An array element write, `a[i] = v` or `a[i] += v`.
    Write,
    /// An image write, `img.write(x, y, v)`.
    ImageWrite,
    /// An integer division `a / b`.
    Divide,
    /// An integer remainder `a % b`.
    Remainder,
    /// A loop step evaluated in the kernel.
    Step,
    /// `x.clamp(min, max)`, which needs `min <= max` (and no NaN bound).
    Clamp,
    /// An element of a private array (a `[T; N]` value), `t[k]` or `t[k] = v`. Always
    /// checked: not a bounds site of the `#[unchecked]` opt-out.
    Private,
}

impl SiteKind {
    /// The variant's name, as generated code spells it.
    pub fn name(self) -> &'static str {
        match self {
            SiteKind::Read => "Read",
            SiteKind::Write => "Write",
            SiteKind::ImageWrite => "ImageWrite",
            SiteKind::Divide => "Divide",
            SiteKind::Remainder => "Remainder",
            SiteKind::Step => "Step",
            SiteKind::Clamp => "Clamp",
            SiteKind::Private => "Private",
        }
    }

    /// Whether it checks memory that a user may opt out of checking (`#[unchecked]`); a
    /// private array's element is always checked.
    pub fn is_bounds(self) -> bool {
        matches!(
            self,
            SiteKind::Read | SiteKind::Write | SiteKind::ImageWrite
        )
    }
}
