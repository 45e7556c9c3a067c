//! How the tool writes a number into a CSV: a chosen count of significant digits in plain
//! decimal notation (`2507124`, not `2507123.9937500004`), the one rule of every CSV the CLI,
//! `eval` and the Python package print.

/// Significant digits of every CSV unless `--precision` says otherwise.
pub const DEFAULT_DIGITS: u32 = 6;

/// Most significant digits asked for: 17 give back every `f64` exactly when read.
pub const MAX_DIGITS: u32 = 17;

/// `x` with `digits` significant digits (clamped to 1..=[`MAX_DIGITS`]), trailing zeros
/// dropped, in plain decimals from 10^-5 to below 10^15 and with an exponent outside. A number
/// with more integer digits than `digits` keeps them all (cycles read `2507124`, not
/// `2.50712e6`).
pub fn significant(x: f64, digits: u32) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let digits = digits.clamp(1, MAX_DIGITS) as i32;
    let e = x.abs().log10().floor() as i32;
    if (-5..15).contains(&e) {
        let decimals = (digits - 1 - e).max(0) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let decimals = (digits - 1) as usize;
        format!("{x:.decimals$e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_digits_by_default_and_more_on_request() {
        assert_eq!(significant(2507123.9937500004, DEFAULT_DIGITS), "2507124");
        assert_eq!(significant(1.5e20, DEFAULT_DIGITS), "1.50000e20");
        assert_eq!(significant(250712.39937500004, DEFAULT_DIGITS), "250712");
        assert_eq!(significant(0.0128229, DEFAULT_DIGITS), "0.0128229");
        assert_eq!(significant(0.5, DEFAULT_DIGITS), "0.5");
        assert_eq!(significant(-3.0, DEFAULT_DIGITS), "-3");
        assert_eq!(significant(1.5e-9, DEFAULT_DIGITS), "1.50000e-9");
        let x = 2507123.9937500004_f64;
        assert_eq!(significant(x, MAX_DIGITS).parse::<f64>().unwrap(), x);
        assert_eq!(significant(x, 99), significant(x, MAX_DIGITS));
    }
}
