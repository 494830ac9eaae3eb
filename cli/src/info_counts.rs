//! The counts of `slog2 info`: the core's [`Counts`] (its module defines
//! every number) as a JSON object and as the category table, where each
//! category shows the drawables and members counted in the file beside the
//! count stored in its category block (the reference stores 0 for
//! composite categories, and counts members in their own category).

use std::io::{self, Write};

use serde_json::{json, Value};
use slog2::read::Counts;
use slog2::Slog2File;

/// The totals as JSON, with the definition they follow.
pub(crate) fn json(c: &Counts) -> Value {
    json!({
        "drawables": c.drawables,
        "composites": c.composites,
        "members": c.members,
        "primitives": c.primitives(),
        "rows": c.rows(),
        "definition": slog2::read::counts::DEFINITION,
    })
}

/// The category table of the text output.
pub(crate) fn category_table(f: &Slog2File, counts: &Counts, w: &mut impl Write) -> io::Result<()> {
    let mut cats: Vec<_> = f.categories().iter().collect();
    cats.sort_by_key(|c| c.index);
    writeln!(
        w,
        "  {:>6}  {:<24} {:<6} {:>10} {:>10} {:>10} {:>12} {:>12}  label",
        "index", "name", "topo", "drawables", "members", "stored", "incl", "excl"
    )?;
    for c in cats {
        let n = counts.category(c.index).copied().unwrap_or_default();
        writeln!(
            w,
            "  {:>6}  {:<24} {:<6} {:>10} {:>10} {:>10} {:>12} {:>12}  {}",
            c.index,
            c.name,
            c.topology.name(),
            n.drawables,
            n.members,
            c.count,
            c.incl_ratio,
            c.excl_ratio,
            c.info.label()
        )?;
    }
    writeln!(
        w,
        "  (drawables and members: counted in the file; stored: the category block's count, \
         which counts members and is 0 for composite categories; incl and excl: the stored \
         ratios, summed durations over the file's time span as the reference writes them — \
         seconds are in `slog2 stats FILE profile`; see `slog2 info --help`)"
    )
}
