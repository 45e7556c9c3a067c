//! Launch values of scalar kernel parameters: what `--param NAME=VALUE`, a suite manifest's
//! `value` and Python's `params` give, and the bits a parameter of each PTX type holds for it.
//!
//! The abstract interpreter's values are integers, so every parameter is bound as a bit
//! pattern of its width: an integer parameter's value as a signed number or an unsigned bit
//! pattern, a float parameter's value as its IEEE bits (what `ld.param.f32` reads). A value
//! that the parameter cannot hold exactly as given is an error, never truncated, wrapped or
//! rounded past its range.

use std::fmt;

use ptx::ast::ScalarType;

/// A value given to a scalar kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    Int(i64),
    Float(f64),
}

impl From<i64> for ParamValue {
    fn from(v: i64) -> Self {
        ParamValue::Int(v)
    }
}

impl From<f64> for ParamValue {
    fn from(v: f64) -> Self {
        ParamValue::Float(v)
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(v) => write!(f, "{v}"),
            // Debug keeps a fraction on whole floats (2.0), so the value reads as a float.
            ParamValue::Float(v) => write!(f, "{v:?}"),
        }
    }
}

impl ParamValue {
    /// Parses the CLI's text: an integer (decimal, or hex after `0x`, optionally negative)
    /// or a finite decimal float (`1.5`, `-2e-3`, `3.`). Integer syntax that does not fit 64
    /// bits is an error rather than a float, so a huge integer is never read as a rounded one.
    pub fn parse(text: &str) -> Result<ParamValue, String> {
        let t = text.trim();
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let hex = digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"));
        let integer = match hex {
            Some(h) => Some(i128::from_str_radix(h, 16).ok()),
            None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                Some(digits.parse::<i128>().ok())
            }
            None => None,
        };
        if let Some(v) = integer {
            return v
                .map(|v| if neg { -v } else { v })
                .and_then(|v| i64::try_from(v).ok())
                .map(ParamValue::Int)
                .ok_or_else(|| {
                    format!(
                        "`{t}` is not an integer of at most 64 bits (-2^63 to 2^63 - 1; \
                         a 64-bit bit pattern above that as a negative number)"
                    )
                });
        }
        // `f64::from_str` also reads `inf` and `NaN`: only numerals are taken.
        let numeral = !digits.is_empty()
            && digits.bytes().any(|b| b.is_ascii_digit())
            && digits
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'));
        match t.parse::<f64>() {
            Ok(v) if numeral && v.is_finite() => Ok(ParamValue::Float(v)),
            Ok(_) if numeral => Err(format!("`{t}` is not a finite number")),
            _ => Err(format!(
                "`{t}` is not a number (give an integer, decimal or 0x hex, or a decimal \
                 float such as 1.5 or 2e-3)"
            )),
        }
    }
}

/// How a parameter of a PTX type takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer bit pattern of this many bits: integer types, untyped `.bN`, packed types
    /// (`.f16x2`, `.tf32`, the 8-bit floats) and aggregates (`.b8 p[16]`, low 64 bits).
    Bits(u8),
    /// An IEEE float of this format.
    Float(FloatFormat),
}

/// The float formats a kernel parameter can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatFormat {
    F16,
    Bf16,
    F32,
    F64,
}

impl ParamKind {
    /// The kind of a parameter of `ty` (its scalar type) and `bytes` (its whole size).
    pub fn of(ty: ScalarType, bytes: u32) -> ParamKind {
        // An array or vector parameter is an aggregate passed by value.
        if bytes != ty.bytes() {
            return ParamKind::Bits((bytes.saturating_mul(8)).clamp(8, 64) as u8);
        }
        match ty {
            ScalarType::F16 => ParamKind::Float(FloatFormat::F16),
            ScalarType::Bf16 => ParamKind::Float(FloatFormat::Bf16),
            ScalarType::F32 => ParamKind::Float(FloatFormat::F32),
            ScalarType::F64 => ParamKind::Float(FloatFormat::F64),
            _ => ParamKind::Bits((bytes.saturating_mul(8)).clamp(8, 64) as u8),
        }
    }
}

/// The smallest value a `bits`-wide integer parameter takes (as a signed number).
pub fn bits_min(bits: u8) -> i128 {
    -(1i128 << (bits.clamp(1, 64) - 1))
}

/// The largest value a `bits`-wide integer parameter takes (as an unsigned bit pattern).
pub fn bits_max(bits: u8) -> i128 {
    (1i128 << bits.min(64)) - 1
}

/// Why a value does not suit a parameter (the caller names the parameter and type).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamMisfit {
    /// An integer past the parameter's width ([`bits_min`] to [`bits_max`]).
    Range { bits: u8 },
    /// Anything else, in words.
    Value(String),
}

impl fmt::Display for ParamMisfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamMisfit::Range { bits } => write!(
                f,
                "does not fit {bits} bits (give {} to {})",
                bits_min(*bits),
                bits_max(*bits)
            ),
            ParamMisfit::Value(why) => f.write_str(why),
        }
    }
}

/// The bits a parameter of `kind` holds for `value`, zero-extended from its width.
pub fn param_bits(kind: ParamKind, ty: ScalarType, value: ParamValue) -> Result<u64, ParamMisfit> {
    match (kind, value) {
        (ParamKind::Bits(bits), ParamValue::Int(v)) => {
            // The value as a signed number or as an unsigned bit pattern of the parameter's
            // width; anything wider would wrap without a word (4294967306 as a .u32 is 10).
            if !(bits_min(bits)..=bits_max(bits)).contains(&i128::from(v)) {
                return Err(ParamMisfit::Range { bits });
            }
            Ok(crate::IntTy {
                bits,
                signed: false,
            }
            .wrap(v as u64))
        }
        (ParamKind::Bits(_), ParamValue::Float(v)) => {
            let whole = v.is_finite() && v.fract() == 0.0 && v.abs() < 9.2e18;
            Err(ParamMisfit::Value(if ty.is_float() {
                // Packed and 8-bit float formats: no single value names their bits.
                format!(
                    "{v:?} is a float, and .{ty} parameters take their bit pattern as an integer"
                )
            } else if whole {
                format!("{v:?} is a float: give the integer {}", v as i64)
            } else {
                format!("{v:?} is not an integer (a value is never truncated)")
            }))
        }
        (ParamKind::Float(format), value) => float_bits(format, ty, value),
    }
}

fn float_bits(format: FloatFormat, ty: ScalarType, value: ParamValue) -> Result<u64, ParamMisfit> {
    let v = match value {
        ParamValue::Float(v) => v,
        ParamValue::Int(i) => {
            // An integer is taken as the number it is, converted exactly or not at all.
            let f = i as f64;
            let back = exact_in(format, f)
                .then_some(f)
                .filter(|f| *f as i128 == i128::from(i));
            back.ok_or_else(|| {
                ParamMisfit::Value(format!(
                    "{i} has no exact .{ty} value (the nearest is {}); give it as a float to \
                     round it",
                    nearest(format, f)
                ))
            })?
        }
    };
    if !v.is_finite() {
        return Err(ParamMisfit::Value(format!("{v:?} is not a finite number")));
    }
    let bits = match format {
        FloatFormat::F64 => Some(v.to_bits()),
        FloatFormat::F32 => Some(v as f32)
            .filter(|f| f.is_finite())
            .map(|f| u64::from(f.to_bits())),
        FloatFormat::F16 => Some(half::f16::from_f64(v))
            .filter(|f| f.is_finite())
            .map(|f| u64::from(f.to_bits())),
        FloatFormat::Bf16 => Some(half::bf16::from_f64(v))
            .filter(|f| f.is_finite())
            .map(|f| u64::from(f.to_bits())),
    };
    bits.ok_or_else(|| {
        ParamMisfit::Value(format!(
            "{v:?} is past the largest finite .{ty} value, {}",
            largest(format)
        ))
    })
}

/// Whether `f` (a whole number) is a value of `format` exactly.
fn exact_in(format: FloatFormat, f: f64) -> bool {
    match format {
        FloatFormat::F64 => true,
        FloatFormat::F32 => f64::from(f as f32) == f,
        FloatFormat::F16 => half::f16::from_f64(f).to_f64() == f,
        FloatFormat::Bf16 => half::bf16::from_f64(f).to_f64() == f,
    }
}

fn nearest(format: FloatFormat, f: f64) -> String {
    let n = match format {
        FloatFormat::F64 => f,
        FloatFormat::F32 => f64::from(f as f32),
        FloatFormat::F16 => half::f16::from_f64(f).to_f64(),
        FloatFormat::Bf16 => half::bf16::from_f64(f).to_f64(),
    };
    if n.is_finite() {
        format!("{n:?}")
    } else {
        format!("past the largest finite value, {}", largest(format))
    }
}

fn largest(format: FloatFormat) -> String {
    match format {
        FloatFormat::F64 => format!("{:e}", f64::MAX),
        FloatFormat::F32 => format!("{:e}", f32::MAX),
        FloatFormat::F16 => format!("{}", half::f16::MAX.to_f64()),
        FloatFormat::Bf16 => format!("{:e}", half::bf16::MAX.to_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text() {
        assert_eq!(ParamValue::parse("0x10"), Ok(ParamValue::Int(16)));
        assert_eq!(ParamValue::parse("-3"), Ok(ParamValue::Int(-3)));
        assert_eq!(ParamValue::parse("-0x10"), Ok(ParamValue::Int(-16)));
        assert_eq!(ParamValue::parse(" 1.5 "), Ok(ParamValue::Float(1.5)));
        assert_eq!(ParamValue::parse("-2e-3"), Ok(ParamValue::Float(-2e-3)));
        assert_eq!(ParamValue::parse("3."), Ok(ParamValue::Float(3.0)));
        assert_eq!(
            ParamValue::parse("-9223372036854775808"),
            Ok(ParamValue::Int(i64::MIN))
        );
        for bad in [
            "",
            "x",
            "inf",
            "NaN",
            "1e999",
            "18446744073709551616",
            "0x1g",
            "1.5.2",
        ] {
            assert!(ParamValue::parse(bad).is_err(), "{bad:?}");
        }
        // Wider than 64 bits is an error, not the float 1.8e19.
        assert!(ParamValue::parse("18446744073709551615")
            .unwrap_err()
            .contains("64 bits"));
    }

    #[test]
    fn bits_of_each_type() {
        let f32k = ParamKind::of(ScalarType::F32, 4);
        let b = |k, ty, v| param_bits(k, ty, v);
        assert_eq!(
            b(f32k, ScalarType::F32, ParamValue::Float(1.5)),
            Ok(u64::from(1.5f32.to_bits()))
        );
        assert_eq!(
            b(f32k, ScalarType::F32, ParamValue::Int(2)),
            Ok(u64::from(2f32.to_bits()))
        );
        assert!(b(f32k, ScalarType::F32, ParamValue::Int(16_777_217)).is_err());
        assert!(b(f32k, ScalarType::F32, ParamValue::Float(1e39)).is_err());
        assert!(b(f32k, ScalarType::F32, ParamValue::Float(f64::NAN)).is_err());
        let f64k = ParamKind::of(ScalarType::F64, 8);
        assert_eq!(
            b(f64k, ScalarType::F64, ParamValue::Float(-0.25)),
            Ok((-0.25f64).to_bits())
        );
        assert!(b(f64k, ScalarType::F64, ParamValue::Int(i64::MAX)).is_err());
        let f16k = ParamKind::of(ScalarType::F16, 2);
        assert_eq!(b(f16k, ScalarType::F16, ParamValue::Float(1.0)), Ok(0x3c00));
        assert!(b(f16k, ScalarType::F16, ParamValue::Float(70000.0)).is_err());
        let bf16k = ParamKind::of(ScalarType::Bf16, 2);
        assert_eq!(b(bf16k, ScalarType::Bf16, ParamValue::Int(1)), Ok(0x3f80));
        let s32 = ParamKind::of(ScalarType::S32, 4);
        assert_eq!(s32, ParamKind::Bits(32));
        assert_eq!(
            b(s32, ScalarType::S32, ParamValue::Int(-1)),
            Ok(0xffff_ffff)
        );
        let e = b(s32, ScalarType::S32, ParamValue::Float(1.5)).unwrap_err();
        assert!(
            matches!(&e, ParamMisfit::Value(m) if m.contains("never truncated")),
            "{e:?}"
        );
        assert!(b(s32, ScalarType::S32, ParamValue::Float(2.0)).is_err());
        // An aggregate takes the low 64 bits as an integer; a packed float type its bits.
        assert_eq!(ParamKind::of(ScalarType::B8, 16), ParamKind::Bits(64));
        assert_eq!(ParamKind::of(ScalarType::F16x2, 4), ParamKind::Bits(32));
        assert!(b(
            ParamKind::Bits(32),
            ScalarType::F16x2,
            ParamValue::Float(1.0)
        )
        .is_err());
    }
}
