//! The category map block (spec §3): what every drawable's category index
//! means — name, topology (event, state, arrow), colour, width, the info
//! format (keys and token letters, §3.1), method IDs, and the summary the
//! legend shows (inclusive and exclusive ratios, count of primitives, §11).
//!
//! Decoding enforces what a reader cannot live without (invariant 6):
//! topologies 0–2, unique indices, and the preview categories -1/-2/-3 with
//! their fixed topologies. Record order carries no meaning (the reference
//! writes a Java hash map's order); readers key by index.

use super::bytes::{put_f32, put_i16, put_i32, put_i64, put_i8, put_str, Decoder};
use crate::error::{Error, Result};
use crate::model::*;

pub fn encode_categories<'c>(out: &mut Vec<u8>, cats: impl ExactSizeIterator<Item = &'c Category>) {
    put_i32(out, cats.len() as i32);
    for c in cats {
        encode_category(out, c);
    }
}

pub fn encode_category(out: &mut Vec<u8>, c: &Category) {
    put_i32(out, c.index);
    put_str(out, &c.name);
    put_i32(out, c.topology as i32);
    put_i32(out, c.color.to_argb());
    put_i8(out, c.color.modifiable as i8);
    put_i8(out, c.width);
    put_i16(out, c.info.keys.len() as i16);
    for k in &c.info.keys {
        put_str(out, k);
    }
    put_i16(out, c.info.tokens.len() as i16);
    out.extend_from_slice(&c.info.tokens);
    put_i16(out, c.methods.len() as i16);
    for m in &c.methods {
        put_i32(out, *m);
    }
    put_f32(out, c.incl_ratio);
    put_f32(out, c.excl_ratio);
    put_i64(out, c.count);
}

pub fn decode_categories(block: &[u8], base: u64) -> Result<Vec<Category>> {
    let mut d = Decoder::new(block, base, "category map");
    let n = d.count(38)?;
    let mut cats = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..n {
        let at = d.offset();
        let index = d.i32()?;
        let name = d.str()?;
        let topo_at = d.offset();
        let topo = d.i32()?;
        let topology = Topology::from_i32(topo).ok_or_else(|| {
            Error::malformed(
                "category map",
                topo_at,
                format!("category {index}: topology {topo} is not 0, 1 or 2"),
            )
        })?;
        let argb = d.i32()?;
        let modifiable = d.u8()? != 0;
        let width = d.i8()?;
        let nkeys = d.count16(2)?;
        let mut keys = Vec::with_capacity(nkeys);
        for _ in 0..nkeys {
            keys.push(d.str()?);
        }
        let ntok = d.count16(1)?;
        let tokens = d.bytes(ntok)?.to_vec();
        let nmeth = d.count16(4)?;
        let mut methods = Vec::with_capacity(nmeth);
        for _ in 0..nmeth {
            methods.push(d.i32()?);
        }
        let incl_ratio = d.f32()?;
        let excl_ratio = d.f32()?;
        let count = d.i64()?;
        if !seen.insert(index) {
            return Err(Error::malformed(
                "category map",
                at,
                format!("duplicate category index {index}"),
            ));
        }
        let expected_preview = match index {
            -1 => Some(Topology::Event),
            -2 => Some(Topology::Arrow),
            -3 => Some(Topology::State),
            _ => None,
        };
        if let Some(t) = expected_preview {
            if t != topology {
                return Err(Error::malformed(
                    "category map",
                    at,
                    format!("preview category {index} must have topology {t}, has {topology}"),
                ));
            }
        }
        cats.push(Category {
            index,
            name,
            topology,
            color: Color::from_argb(argb, modifiable),
            width,
            info: InfoFormat { keys, tokens },
            methods,
            incl_ratio,
            excl_ratio,
            count,
            visible: true,
            searchable: true,
        });
    }
    d.expect_end()?;
    Ok(cats)
}

#[cfg(test)]
mod tests {
    use crate::model::InfoFormat;

    /// The info format's split into keys and tokens (§3.1).

    #[test]
    fn info_format_parse() {
        let f = InfoFormat::parse("msg_tag=%d, msg_size=%d").unwrap();
        assert_eq!(f.keys, vec!["msg_tag=", ", msg_size=", ""]);
        assert_eq!(f.tokens, b"dd");
        assert_eq!(f.label(), "msg_tag=%d, msg_size=%d");
        let f = InfoFormat::parse("%d items").unwrap();
        assert_eq!(f.keys, vec![" items"]);
        assert_eq!(f.label(), "%d items");
        assert!(InfoFormat::parse("abc%").is_err());
        assert_eq!(InfoFormat::parse("abc").unwrap().keys, vec!["abc"]);
    }
}
