//! Numbers as people read them: rates that keep their significant digits however small
//! (one failure in 27,767 runs is 0.000036, not "0.0000") and are 0 when exactly 0, and
//! counts with their noun.

/// `x` with at least `decimals` decimals and enough more to show two significant digits; an
/// exact 0 as "0", which no rounding made.
fn significant(x: f64, decimals: usize) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return format!("{x:.decimals$}");
    }
    // Digits after the point before the first significant one, plus two.
    let leading = (-x.abs().log10().floor()).max(0.0) as usize;
    if leading + 1 > 12 {
        // Twelve decimals would show only zeros ("0.000000000000%"): the exponent says it.
        return format!("{x:.1e}");
    }
    let decimals = decimals.max(leading + 1);
    format!("{x:.decimals$}")
}

/// A rate between 0 and 1: four decimals, more when it is smaller than 0.001.
pub fn rate(x: f64) -> String {
    significant(x, 4)
}

/// A share as a percentage: three decimals, more when it is smaller than 0.001%.
pub fn percent(x: f64) -> String {
    format!("{}%", significant(x * 100.0, 3))
}

pub use wgstress_model::plural::count;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_rates_keep_two_significant_digits() {
        assert_eq!(rate(1.0 / 27_767.0), "0.000036");
        assert_eq!(rate(0.25), "0.2500");
        assert_eq!(rate(0.0), "0");
        assert_eq!(rate(1.0), "1.0000");
        assert_eq!(percent(1.0 / 27_767.0), "0.0036%");
        assert_eq!(percent(0.5), "50.000%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1e-6), "0.00010%");
    }

    #[test]
    fn a_share_too_small_for_twelve_decimals_shows_its_exponent() {
        assert_eq!(percent(1.0e-17), "1.0e-15%");
        assert_eq!(rate(3.4e-14), "3.4e-14");
        assert_eq!(percent(1.0e-13), "0.000000000010%");
    }
}
