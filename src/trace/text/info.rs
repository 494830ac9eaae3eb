//! Info payloads: a category's label prepared once ([`InfoPlan`]) and the
//! info text of drawables encoded with it, one value per `%` token,
//! big-endian, matching the label's literal text with the scanf whitespace
//! rule. [`Infos`] says when: at once ([`Encode`], the sequential source)
//! or later in file order ([`super::chunk`]: a chunk's categories may be
//! defined in an earlier chunk another thread parses).

use std::ops::Range;
use std::sync::Arc;

use super::lexer::*;
use crate::error::Result;
use crate::model::*;

/// Where an info text lies: its category, whose info it is (0 the
/// record's, k composite member k-1), the line (a range of the parser's
/// buffer) and the positions of `<`, the text and ` >` in it.
pub(super) struct InfoAt {
    pub category: i32,
    pub member: u32,
    pub line: Range<usize>,
    pub open: usize,
    pub body: usize,
    pub close: usize,
}

/// What the record parser does with categories and info text.
pub(super) trait Infos {
    /// A category was defined: its label encodes the info of later drawables.
    fn define(&mut self, c: &Category);
    /// Info text at `at` (the cursor `c` at its `<`): its bytes, or empty
    /// when encoding is left for later.
    fn info(&mut self, c: &mut Cur, at: InfoAt) -> PResult<InfoBytes>;
}

/// Encode info at once with the labels defined so far (shared with the
/// source's checkpoints: copied on the next definition only).
#[derive(Default, Clone)]
pub(super) struct Encode(pub Arc<rustc_hash::FxHashMap<i32, InfoPlan>>);

impl Infos for Encode {
    fn define(&mut self, c: &Category) {
        Arc::make_mut(&mut self.0).insert(c.index, InfoPlan::new(&c.info));
    }

    #[inline]
    fn info(&mut self, c: &mut Cur, at: InfoAt) -> PResult<InfoBytes> {
        encode_with(&self.0, c, at.category, at.body, at.close)
    }
}

/// A category label prepared for encoding info text: the literal text
/// before each token and after the last one, split into whitespace-free
/// pieces (matched exactly) and whitespace (matching any run, even empty).
#[derive(Clone)]
pub(super) struct InfoPlan {
    fmt: InfoFormat,
    tokens: Vec<u8>,
    /// `tokens.len() + 1` literals: before each token, then the tail.
    lits: Vec<Vec<Piece>>,
    /// The same literals as written in the label, when the label is the
    /// usual MPE kind — at most four `%d` tokens, literals of at most 16
    /// bytes without a `>`: info spelled exactly like it is then encoded
    /// without the general matcher ([`InfoPlan::encode_exact`]), comparing
    /// a word at a time. Without a `>` in a literal the first ` >` after the
    /// info's `< ` (where the general parser ends the info) is the one right
    /// after the last literal, so the whole-line fast path ([`window_line`])
    /// can match info without first finding where it ends.
    exact: Option<Vec<Lit>>,
}

/// A short literal, compared with one 16-byte load where the input has room.
#[derive(Clone)]
pub(super) struct Lit {
    text: Box<[u8]>,
    word: u128,
    mask: u128,
}

impl Lit {
    pub(super) fn new(text: &[u8]) -> Lit {
        let mut b = [0u8; 16];
        b[..text.len()].copy_from_slice(text);
        Lit {
            text: text.into(),
            word: u128::from_le_bytes(b),
            mask: low_bytes_mask(text.len()),
        }
    }

    /// The position after the literal if `s[p..]` starts with it.
    #[inline(always)]
    pub(super) fn matches(&self, s: &[u8], p: usize) -> Option<usize> {
        let n = self.text.len();
        let same = match s.get(p..p + 16) {
            Some(w) => (load16(w) ^ self.word) & self.mask == 0,
            None => s.get(p..p + n)? == &self.text[..],
        };
        same.then_some(p + n)
    }
}

/// 16 bytes as a little-endian integer.
#[inline(always)]
pub(super) fn load16(w: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(&w[..16]);
    u128::from_le_bytes(b)
}

/// `s[p..]` starts with `lit` (a literal of the format): whole-word
/// compares instead of a byte loop or a `memcmp` call.
#[inline(always)]
pub(super) fn lit_at<const N: usize>(s: &[u8], p: usize, lit: &[u8; N]) -> bool {
    match s.get(p..p + N) {
        Some(x) => {
            let mut a = [0u8; N];
            a.copy_from_slice(x);
            a == *lit
        }
        None => false,
    }
}

#[derive(Clone)]
pub(super) enum Piece {
    Exact(Box<[u8]>),
    Ws,
}

impl InfoPlan {
    pub(super) fn new(fmt: &InfoFormat) -> Self {
        let split = |k: &str| -> Vec<Piece> {
            let mut v = Vec::new();
            let b = k.as_bytes();
            let mut i = 0;
            while i < b.len() {
                let st = i;
                if b[i].is_ascii_whitespace() {
                    while i < b.len() && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    v.push(Piece::Ws);
                } else {
                    while i < b.len() && !b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    v.push(Piece::Exact(b[st..i].into()));
                }
            }
            v
        };
        let lead = fmt.keys.len() > fmt.tokens.len();
        let mut keys = fmt.keys.iter();
        let mut lits = vec![if lead {
            split(keys.next().map_or("", |k| k.as_str()))
        } else {
            Vec::new()
        }];
        for _ in &fmt.tokens {
            lits.push(split(keys.next().map_or("", |k| k.as_str())));
        }
        let exact = fmt
            .tokens
            .iter()
            .all(|t| *t == b'd')
            .then(|| {
                let mut keys = fmt.keys.iter().map(|k| k.as_bytes());
                let mut v: Vec<&[u8]> = vec![if lead {
                    keys.next().unwrap_or_default()
                } else {
                    b""
                }];
                for _ in &fmt.tokens {
                    v.push(keys.next().unwrap_or_default());
                }
                v
            })
            .filter(|e| e.len() <= 5 && e.iter().all(|l| l.len() <= 16 && !l.contains(&b'>')))
            .map(|e| e.into_iter().map(Lit::new).collect());
        InfoPlan {
            fmt: fmt.clone(),
            tokens: fmt.tokens.clone(),
            lits,
            exact,
        }
    }

    /// Info at `s[at..]` spelled exactly like the label (literals and `%d`
    /// values, see `exact`): its encoding and the position after the last
    /// literal; `None` for the general matcher (which gives the same bytes
    /// or the error).
    #[inline]
    pub(super) fn encode_exact(&self, s: &[u8], at: usize) -> Option<(InfoBytes, usize)> {
        let lits = self.exact.as_deref()?;
        let mut out = [0u8; 16];
        let mut p = at;
        let (last, values) = lits.split_last()?;
        for (k, lit) in values.iter().enumerate() {
            p = lit.matches(s, p)?;
            let (v, n) = fast_int(s.get(p..)?)?;
            p += n;
            out[4 * k..4 * k + 4].copy_from_slice(&v.to_be_bytes());
        }
        p = last.matches(s, p)?;
        Some((InfoBytes::from_slice(&out[..4 * values.len()]), p))
    }

    /// Match literal `k` at the cursor.
    #[inline]
    pub(super) fn literal(&self, t: &mut Cur, k: usize) -> PResult<()> {
        for piece in &self.lits[k] {
            match piece {
                Piece::Ws => t.ws(),
                Piece::Exact(e) => match t.s.get(t.p..t.p + e.len()) {
                    Some(x) if same_bytes(x, e) => t.p += e.len(),
                    _ => {
                        // Point at the first byte that differs.
                        let same = t.s[t.p..]
                            .iter()
                            .zip(e.iter())
                            .take_while(|(a, b)| a == b)
                            .count();
                        t.p += same;
                        return Err(t.err(&format!(
                            "info does not match the category label {:?}: expected {:?}",
                            self.fmt.label(),
                            String::from_utf8_lossy(&e[same..])
                        )));
                    }
                },
            }
        }
        Ok(())
    }
}

/// Info text `c.s[body..close]` (the cursor at its `<`) encoded with the
/// label of `category`.
pub(super) fn encode_with(
    formats: &rustc_hash::FxHashMap<i32, InfoPlan>,
    c: &mut Cur,
    category: i32,
    body: usize,
    close: usize,
) -> PResult<InfoBytes> {
    let Some(fmt) = formats.get(&category) else {
        return Err(c.err(&format!(
            "info given but category {category} is not defined yet \
             (define categories before the drawables that use them)"
        )));
    };
    if fmt.fmt.is_empty() {
        return Err(c.err(&format!(
            "info given but category {category} has no label to encode it with"
        )));
    }
    encode_info(fmt, &c.s[..close], body, c)
}

/// The labels of the categories defined so far, for encoding deferred info
/// in file order (the consumer side of parallel parsing).
#[derive(Default)]
pub(crate) struct InfoFormats(rustc_hash::FxHashMap<i32, InfoPlan>);

impl InfoFormats {
    pub fn define(&mut self, c: &Category) {
        self.0.insert(c.index, InfoPlan::new(&c.info));
    }

    /// Encode one deferred info; `buf` is the chunk buffer it refers to.
    pub fn encode(&self, file: &str, buf: &[u8], d: &DeferredInfo) -> Result<InfoBytes> {
        let mut c = Cur {
            s: &buf[d.line.clone()],
            p: d.open,
            file,
            line: d.line_no,
        };
        encode_with(&self.0, &mut c, d.category, d.body, d.close).map_err(|e| *e)
    }
}

/// Match `text[from..]` against the label (scanf rules) and encode the values.
pub(super) fn encode_info(
    plan: &InfoPlan,
    text: &[u8],
    from: usize,
    c: &Cur,
) -> PResult<InfoBytes> {
    if let Some((b, end)) = plan.encode_exact(text, from) {
        if text[end..].iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(b);
        }
    }
    let mut t = Cur {
        s: text,
        p: from,
        file: c.file,
        line: c.line,
    };
    let mut out = InfoBytes::new();
    plan.literal(&mut t, 0)?;
    for (k, &tok) in plan.tokens.iter().enumerate() {
        match tok {
            b'd' => out.extend_from_slice(&t.int()?.to_be_bytes()),
            b'h' => {
                t.ws();
                let at = t.p;
                let v = t.int()?;
                let v = i16::try_from(v).map_err(|_| {
                    t.p = at;
                    t.err(&format!("%h value {v} does not fit 16 bits"))
                })?;
                out.extend_from_slice(&v.to_be_bytes());
            }
            b'l' => out.extend_from_slice(&t.int64()?.to_be_bytes()),
            b'x' => out.extend_from_slice(&(t.hex(32)? as u32).to_be_bytes()),
            b'X' => out.extend_from_slice(&t.hex(64)?.to_be_bytes()),
            b'e' => out.extend_from_slice(&t.float()?.to_be_bytes()),
            b'E' => out.extend_from_slice(&t.double()?.to_be_bytes()),
            b's' => {
                t.ws();
                let s = t.name()?;
                let n = i16::try_from(s.len())
                    .map_err(|_| t.err("%s value longer than 32767 bytes"))?;
                out.extend_from_slice(&n.to_be_bytes());
                out.extend_from_slice(s);
            }
            other => {
                return Err(t.err(&format!(
                    "label token '%{}' cannot be encoded",
                    other as char
                )))
            }
        }
        plan.literal(&mut t, k + 1)?;
    }
    t.ws();
    if t.peek().is_some() {
        return Err(t.err("info has text left over after the label's last value"));
    }
    if out.len() > i16::MAX as usize {
        return Err(t.err("info payload longer than 32767 bytes"));
    }
    Ok(out)
}

/// Info text found in chunk mode, to be encoded by the consumer in file order.
#[derive(Debug, Clone)]
pub(crate) struct DeferredInfo {
    /// Index of the record in its chunk (set by the chunk's parser thread).
    pub record: u32,
    /// 0: the record's own info; k: the info of composite member k-1.
    pub target: u32,
    pub category: i32,
    pub line_no: usize,
    /// The line, as a range of the chunk's buffer; the positions below are
    /// relative to it (as `angle` returns them).
    pub line: Range<usize>,
    pub open: usize,
    pub body: usize,
    pub close: usize,
}
