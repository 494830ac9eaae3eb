//! Info payloads checked against their category's format before a drawable
//! is stored.
//!
//! A payload is opaque bytes to the writer, but a reader decodes it with
//! the tokens of the drawable's category (`%d`, `%s`...; spec §7.6). A
//! payload shorter than its tokens need, or a category with a token the
//! format does not define, makes a file that `check` rejects (invariant 17)
//! and that the reference viewer cannot show. So every drawable — from the
//! converter, the C API, or a Rust caller of
//! [`Slog2Writer::add_drawable`] — has its payloads (its own and, for a
//! composite, each member's) checked here first, the way `check` decodes
//! them ([`crate::read::info_problem`], which does not allocate).
//!
//! Passing: an empty payload, a category without tokens, a category not
//! defined (yet: the writer invents a placeholder for it, as the
//! reference does), and extra bytes after the last token (CLOG2-derived
//! files carry fixed-size payloads longer than needed).

use super::Slog2Writer;
use crate::error::{Error, Result};
use crate::model::Drawable;

impl Slog2Writer {
    /// Check one info payload against the format of `category` (see the
    /// module docs). The error is [`Error::InvalidDrawable`] for the next
    /// drawable.
    pub fn check_info(&self, category: i32, info: &[u8]) -> Result<()> {
        if info.is_empty() {
            return Ok(());
        }
        let Some((c, _)) = self.categories.get(&category) else {
            return Ok(());
        };
        match crate::read::info_problem(&c.info.tokens, info) {
            None => Ok(()),
            Some(p) => Err(Error::InvalidDrawable {
                index: self.summary.drawables + 1,
                detail: format!(
                    "its info payload of {} bytes does not fit category {category}'s format: {p}",
                    info.len()
                ),
                location: String::new(),
            }),
        }
    }

    /// Check every payload of `d` ([`check_info`](Self::check_info)).
    #[inline(always)]
    pub(super) fn check_payloads(&self, d: &Drawable) -> Result<()> {
        match d {
            Drawable::Primitive(p) if p.info.is_empty() => Ok(()),
            Drawable::Primitive(p) => self.check_info(p.category, &p.info),
            Drawable::Composite(c) => {
                self.check_info(c.category, &c.info)?;
                c.members
                    .iter()
                    .try_for_each(|m| self.check_info(m.category, &m.info))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::*;
    use crate::{ErrorKind, Slog2Writer, WriterOptions};

    #[test]
    fn short_payloads_are_refused_before_anything_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("p.slog2");
        let mut w = Slog2Writer::create(&out, WriterOptions::default()).unwrap();
        let mut c = Category::new(0, "s", Topology::State, Color::rgba(1, 2, 3, 255), 1);
        c.info = InfoFormat::parse("a=%d b=%d").unwrap();
        w.add_category(c).unwrap();
        let state = |info: &[u8]| {
            Drawable::Primitive(Primitive::new(
                0,
                vec![Vertex::new(0.0, 0), Vertex::new(1.0, 0)],
                info,
            ))
        };
        let e = w.add_drawable(state(&[0, 0, 0, 1])).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidDrawable);
        assert!(e.to_string().contains("invalid drawable #1"), "{e}");
        assert!(
            e.to_string().contains("does not fit category 0's format"),
            "{e}"
        );
        // A composite member's payload is checked too.
        let bad = Composite {
            category: 0,
            info: Default::default(),
            members: vec![Primitive::new(0, vec![Vertex::new(0.0, 1)], &[1u8][..])],
        };
        let e = w.add_drawable(Drawable::Composite(bad)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidDrawable);
        // Empty, whole, and longer payloads pass; nothing bad was stored.
        w.add_drawable(state(&[])).unwrap();
        w.add_drawable(state(&[0, 0, 0, 1, 0, 0, 0, 2])).unwrap();
        w.add_drawable(state(&[0, 0, 0, 1, 0, 0, 0, 2, 9])).unwrap();
        let s = w.finish().unwrap();
        assert_eq!(s.drawables, 3);
        let f = crate::Slog2File::open(&out).unwrap();
        assert!(f.check().errors.is_empty(), "{:?}", f.check().errors);
    }
}
