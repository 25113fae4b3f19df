//! Lenient numbers and the clamping rules of every edit.

use serde::{Deserialize, Deserializer, Serialize, de};

/// Smallest width or height.
pub const MIN_SIZE: f64 = 10.0;
/// Largest width or height.
pub const MAX_SIZE: f64 = 5000.0;
/// Largest absolute x or y.
pub const MAX_COORD: f64 = 50_000.0;
/// Longest text, in characters; longer text is cut.
pub const MAX_TEXT_CHARS: usize = 10_000;

/// A finite number that also accepts a numeric string (`"100"`). NaN and infinities are refused.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Num(pub f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a finite number or a numeric string")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                finite(v).ok_or_else(|| E::custom("number must be finite"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                let parsed: f64 = v
                    .trim()
                    .parse()
                    .map_err(|_| E::custom(format!("{v:?} is not a number")))?;
                finite(parsed).ok_or_else(|| E::custom("number must be finite"))
            }
        }
        d.deserialize_any(V)
    }
}

fn finite(v: f64) -> Option<Num> {
    v.is_finite().then_some(Num(v))
}

/// Clamps a width or height to 10..5000.
pub fn clamp_size(v: f64) -> f64 {
    v.clamp(MIN_SIZE, MAX_SIZE)
}

/// Clamps a coordinate to -50000..50000.
pub fn clamp_coord(v: f64) -> f64 {
    v.clamp(-MAX_COORD, MAX_COORD)
}

/// Normalizes a rotation in degrees to 0..360.
pub fn norm_rotation(v: f64) -> f64 {
    let r = v.rem_euclid(360.0);
    if r.is_finite() { r } else { 0.0 }
}

/// Cuts text to at most [`MAX_TEXT_CHARS`] characters.
pub fn cap_text(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT_CHARS) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn val_1_coercion_and_rejection() {
        let n: Num = serde_json::from_str("\"100\"").unwrap();
        assert_eq!(n.0, 100.0);
        let n: Num = serde_json::from_str("12.5").unwrap();
        assert_eq!(n.0, 12.5);
        assert!(serde_json::from_str::<Num>("\"NaN\"").is_err());
        assert!(serde_json::from_str::<Num>("\"inf\"").is_err());
        assert!(serde_json::from_str::<Num>("\"abc\"").is_err());
        assert!(serde_json::from_str::<Num>("true").is_err());
        assert!(serde_json::from_str::<Num>("null").is_err());
    }

    #[test]
    fn val_2_clamping() {
        assert_eq!(clamp_size(99999.0), 5000.0);
        assert_eq!(clamp_size(1.0), 10.0);
        assert_eq!(clamp_coord(-100000.0), -50000.0);
        assert_eq!(norm_rotation(-90.0), 270.0);
        assert_eq!(
            cap_text(&"é".repeat(MAX_TEXT_CHARS + 5)).chars().count(),
            MAX_TEXT_CHARS
        );
    }
}
