//! An SLOG-2 file as a trace source: re-tree a file with another leaf size or
//! children per node, or round-trip it through the writer.
//!
//! Categories come first (the preview categories and the summaries are
//! dropped: the writer recomputes them), then every drawable in non-decreasing
//! end time, then the y-maps except the generated "Identity Map". A file's
//! nodes are stored in post-order, not end order, so this source collects the
//! drawables and sorts them (stable, by end time): memory is proportional to
//! the file's drawables — fine for re-treeing, not meant for files larger
//! than memory.

use std::path::Path;

use crate::error::Result;
use crate::model::*;
use crate::read::Slog2File;
use crate::trace::{Record, TraceComposite, TracePrimitive, TraceSource};

pub struct Slog2Source {
    records: std::vec::IntoIter<Record>,
    name: String,
    delivered: usize,
}

impl Slog2Source {
    /// True when the file starts with the SLOG-2 version string.
    pub fn looks_like(path: &Path) -> bool {
        let mut head = [0u8; 12];
        match std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        {
            Ok(()) => &head[..2] == b"\x00\x0a" && head[2..].starts_with(b"SLOG 2"),
            Err(_) => false,
        }
    }

    pub fn open(path: &Path) -> Result<Self> {
        let f = Slog2File::open(path)?;
        let mut records = Vec::new();
        for c in f.categories() {
            if c.index >= 0 {
                let mut c = c.clone();
                c.incl_ratio = 0.0;
                c.excl_ratio = 0.0;
                c.count = 0;
                records.push(Record::Category(c));
            }
        }
        let mut ds: Vec<Drawable> = f.drawables().collect::<Result<_>>()?;
        ds.sort_by(|a, b| a.time_box().end.total_cmp(&b.time_box().end));
        for d in ds {
            let stated = d.time_box();
            records.push(match d {
                Drawable::Primitive(primitive) => {
                    Record::Primitive(TracePrimitive { stated, primitive })
                }
                Drawable::Composite(composite) => Record::Composite(TraceComposite {
                    stated,
                    member_boxes: composite.members.iter().map(Primitive::time_box).collect(),
                    composite,
                }),
            });
        }
        for m in f.ycoordmaps() {
            if m.title != "Identity Map" {
                records.push(Record::YCoordMap(m.clone()));
            }
        }
        Ok(Slog2Source {
            records: records.into_iter(),
            name: path.display().to_string(),
            delivered: 0,
        })
    }
}

impl TraceSource for Slog2Source {
    fn next_record(&mut self) -> Result<Option<Record>> {
        let r = self.records.next();
        if r.is_some() {
            self.delivered += 1;
        }
        Ok(r)
    }

    fn location(&self) -> String {
        format!("{} record {}", self.name, self.delivered)
    }

    fn progress(&self) -> Option<f64> {
        let left = self.records.len();
        Some(self.delivered as f64 / (self.delivered + left).max(1) as f64)
    }
}
