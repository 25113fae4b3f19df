//! Pictures as they arrive (ASSET-2..6): the type comes from the bytes (never from a declared
//! type or a file name); rasters are decoded under hard limits (their declared size is checked
//! before anything is decoded, so a small file declaring a huge picture costs nothing); a JPEG
//! with an EXIF rotation is stored upright, and EXIF and text metadata (GPS included) are dropped
//! from JPEGs and PNGs; an SVG is stripped of script, event handlers, `javascript:` URLs,
//! `foreignObject` and external references before it is hashed, and its size read by parsing
//! it. Pure functions: the routes call them on a blocking thread.

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader};
use sha2::{Digest, Sha256};
use std::io::Cursor;

/// Why a picture was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not a type the server takes (`415 unsupported_media`).
    Unsupported(String),
    /// Undecodable, or too many pixels (`400 invalid`).
    Invalid(String),
}

/// A picture ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub bytes: Vec<u8>,
    pub mime: &'static str,
    pub w: u32,
    pub h: u32,
    pub animated: bool,
}

/// The longest side of a preview.
pub const PREVIEW_SIDE: u32 = 1024;

/// SHA-256 of `bytes`, 64 lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Raster(ImageFormat),
    Svg,
}

const CONVERT: &str = "convert it to PNG or JPEG";

/// The type of `b`, from its first bytes.
fn sniff(b: &[u8]) -> Result<Kind, Refused> {
    let at = |i: usize, m: &[u8]| b.len() >= i + m.len() && &b[i..i + m.len()] == m;
    if at(0, b"\x89PNG\r\n\x1a\n") {
        return Ok(Kind::Raster(ImageFormat::Png));
    }
    if at(0, &[0xFF, 0xD8, 0xFF]) {
        return Ok(Kind::Raster(ImageFormat::Jpeg));
    }
    if at(0, b"GIF87a") || at(0, b"GIF89a") {
        return Ok(Kind::Raster(ImageFormat::Gif));
    }
    if at(0, b"RIFF") && at(8, b"WEBP") {
        return Ok(Kind::Raster(ImageFormat::WebP));
    }
    let named = if at(4, b"ftyp") {
        Some("HEIC and AVIF")
    } else if at(0, b"II*\0") || at(0, b"MM\0*") {
        Some("TIFF")
    } else if at(0, b"BM") {
        Some("BMP")
    } else {
        None
    };
    if let Some(n) = named {
        return Err(Refused::Unsupported(format!(
            "{n} pictures are not taken: {CONVERT}"
        )));
    }
    if looks_like_svg(b) {
        return Ok(Kind::Svg);
    }
    Err(Refused::Unsupported(
        "only PNG, JPEG, GIF, WebP and SVG pictures are taken".into(),
    ))
}

/// Text whose first element is `<svg` (after an XML declaration, comments or a doctype).
fn looks_like_svg(b: &[u8]) -> bool {
    let head = &b[..b.len().min(4096)];
    let Ok(text) =
        std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
    else {
        return false;
    };
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('<') && t.to_ascii_lowercase().contains("<svg")
}

/// Checks, cleans and measures a picture.
pub fn take(bytes: &[u8], max_pixels: u64) -> Result<Picture, Refused> {
    match sniff(bytes)? {
        Kind::Svg => svg(bytes),
        Kind::Raster(f) => raster(bytes, f, max_pixels),
    }
}

fn undecodable(e: impl std::fmt::Display) -> Refused {
    Refused::Invalid(format!("the picture cannot be read: {e}"))
}

/// Decoder limits for a `w` x `h` picture: no larger sides, no more memory than it needs.
fn limits(w: u32, h: u32) -> image::Limits {
    let mut l = image::Limits::default();
    l.max_image_width = Some(w);
    l.max_image_height = Some(h);
    l.max_alloc = Some(u64::from(w) * u64::from(h) * 8 + (64 << 20));
    l
}

/// The declared size of a raster, refused past `max_pixels` before any decoding.
fn checked_size(bytes: &[u8], f: ImageFormat, max_pixels: u64) -> Result<(u32, u32), Refused> {
    let (w, h) = ImageReader::with_format(Cursor::new(bytes), f)
        .into_dimensions()
        .map_err(undecodable)?;
    if w == 0 || h == 0 {
        return Err(Refused::Invalid("the picture has no pixels".into()));
    }
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(Refused::Invalid(format!(
            "{w} x {h} pixels is more than the {max_pixels} a picture may have (--max-asset-pixels)"
        )));
    }
    Ok((w, h))
}

/// Decodes a raster under limits; with its EXIF orientation (JPEG) when it has one.
fn decode(
    bytes: &[u8],
    f: ImageFormat,
    w: u32,
    h: u32,
) -> Result<(DynamicImage, image::metadata::Orientation), Refused> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), f);
    reader.limits(limits(w, h));
    let mut dec = reader.into_decoder().map_err(undecodable)?;
    let orientation = dec
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let img = DynamicImage::from_decoder(dec).map_err(undecodable)?;
    Ok((img, orientation))
}

fn raster(bytes: &[u8], f: ImageFormat, max_pixels: u64) -> Result<Picture, Refused> {
    let (w, h) = checked_size(bytes, f, max_pixels)?;
    let (mut img, orientation) = decode(bytes, f, w, h)?;
    let (stored, mime) = match f {
        ImageFormat::Jpeg if orientation != image::metadata::Orientation::NoTransforms => {
            // Stored upright: turned, then encoded again (without any metadata).
            img.apply_orientation(orientation);
            let mut out = Vec::new();
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92);
            img.to_rgb8().write_with_encoder(enc).map_err(undecodable)?;
            (out, "image/jpeg")
        }
        ImageFormat::Jpeg => (jpeg_without_metadata(bytes), "image/jpeg"),
        ImageFormat::Png => (png_without_metadata(bytes), "image/png"),
        ImageFormat::Gif => (bytes.to_vec(), "image/gif"),
        _ => (bytes.to_vec(), "image/webp"),
    };
    Ok(Picture {
        animated: animated(bytes, f),
        w: img.width(),
        h: img.height(),
        bytes: stored,
        mime,
    })
}

/// Whether a GIF has more than one frame, or a WebP says it is animated.
fn animated(b: &[u8], f: ImageFormat) -> bool {
    match f {
        ImageFormat::Gif => {
            use image::AnimationDecoder;
            image::codecs::gif::GifDecoder::new(Cursor::new(b))
                .map(|d| d.into_frames().take(2).count() > 1)
                .unwrap_or(false)
        }
        // The VP8X header's animation flag.
        ImageFormat::WebP => b.len() > 20 && &b[12..16] == b"VP8X" && b[20] & 0x02 != 0,
        _ => false,
    }
}

/// A JPEG without its APP1 (EXIF, XMP), APP13 (IPTC) and comment segments; the image data and
/// the segments that affect how it looks (JFIF, ICC profile, Adobe) are kept byte for byte.
pub fn jpeg_without_metadata(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    out.extend_from_slice(&b[..2]);
    let mut i = 2;
    while i + 4 <= b.len() && b[i] == 0xFF {
        let marker = b[i + 1];
        // Start of scan (the image data follows) or end of image: the rest as it is.
        if marker == 0xDA || marker == 0xD9 {
            break;
        }
        let len = usize::from(u16::from_be_bytes([b[i + 2], b[i + 3]]));
        let end = (i + 2 + len).min(b.len());
        if !matches!(marker, 0xE1 | 0xED | 0xFE) {
            out.extend_from_slice(&b[i..end]);
        }
        i = end;
    }
    out.extend_from_slice(&b[i.min(b.len())..]);
    out
}

/// A PNG without its eXIf and text chunks (tEXt, zTXt, iTXt: XMP and the like).
pub fn png_without_metadata(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    out.extend_from_slice(&b[..8]);
    let mut i = 8;
    while i + 12 <= b.len() {
        let len = u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
        let end = (i + 12 + len).min(b.len());
        let kind = &b[i + 4..i + 8];
        if !matches!(kind, b"eXIf" | b"tEXt" | b"zTXt" | b"iTXt") {
            out.extend_from_slice(&b[i..end]);
        }
        i = end;
    }
    out
}

fn svg(bytes: &[u8]) -> Result<Picture, Refused> {
    let mut filter = svg_hush::Filter::new();
    // Pictures inside the SVG only as `data:` URIs of rasters; nothing else leaves the file.
    filter.set_data_url_filter(svg_hush::data_url_filter::allow_standard_images);
    let mut clean = Vec::with_capacity(bytes.len());
    filter
        .filter(&mut &bytes[..], &mut clean)
        .map_err(|e| Refused::Invalid(format!("the SVG cannot be read: {e}")))?;
    let clean = without_outside_references(&String::from_utf8_lossy(&clean)).into_bytes();
    let (w, h) = render::svg_size(&clean)
        .ok_or_else(|| Refused::Invalid("the SVG cannot be read".into()))?;
    let side = |v: f64| v.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    Ok(Picture {
        bytes: clean,
        mime: "image/svg+xml",
        w: side(w),
        h: side(h),
        animated: false,
    })
}

/// Whether a reference stays inside the picture: a fragment (`#id`) or a `data:` URI.
fn inside(url: &str) -> bool {
    let u = url.trim();
    u.starts_with('#') || u.starts_with("data:")
}

/// The filter's output without references to anything outside the picture: it keeps
/// same-origin paths, which a picture served on its own never needs (and which must never name
/// a file of the server's). `href="…"` attributes pointing outside are dropped and `url(…)`
/// pointing outside becomes `none`. (The filter writes every attribute as `name="value"`.)
fn without_outside_references(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find("href=\"") {
        let value_at = at + 6;
        let Some(len) = rest[value_at..].find('"') else {
            break;
        };
        let value = &rest[value_at..value_at + len];
        let attribute = rest[..at].ends_with(char::is_whitespace);
        if inside(value) || !attribute {
            out.push_str(&rest[..value_at + len + 1]);
        } else {
            out.push_str(&rest[..at]);
        }
        rest = &rest[value_at + len + 1..];
    }
    out.push_str(rest);
    let mut done = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("url(") {
        let Some(len) = rest[at + 4..].find(')') else {
            break;
        };
        let value = rest[at + 4..at + 4 + len].trim_matches(|c| c == '\'' || c == '"' || c == ' ');
        done.push_str(&rest[..at]);
        if inside(value) {
            done.push_str(&rest[at..at + 5 + len]);
        } else {
            done.push_str("none");
        }
        rest = &rest[at + 5 + len..];
    }
    done.push_str(rest);
    done
}

/// A smaller copy of a stored raster for far zoom levels (at most [`PREVIEW_SIDE`] on its
/// longer side), as PNG or JPEG; None when the picture is small enough already or is an SVG.
pub fn preview(bytes: &[u8], mime: &str) -> Option<(Vec<u8>, &'static str)> {
    let f = match mime {
        "image/png" => ImageFormat::Png,
        "image/jpeg" => ImageFormat::Jpeg,
        "image/gif" => ImageFormat::Gif,
        "image/webp" => ImageFormat::WebP,
        _ => return None,
    };
    let (w, h) = checked_size(bytes, f, u64::MAX).ok()?;
    if w.max(h) <= PREVIEW_SIDE {
        return None;
    }
    let (img, _) = decode(bytes, f, w, h).ok()?;
    let small = img.thumbnail(PREVIEW_SIDE, PREVIEW_SIDE);
    let mut out = Cursor::new(Vec::new());
    if f == ImageFormat::Jpeg {
        small.to_rgb8().write_to(&mut out, ImageFormat::Jpeg).ok()?;
        return Some((out.into_inner(), "image/jpeg"));
    }
    small.write_to(&mut out, ImageFormat::Png).ok()?;
    Some((out.into_inner(), "image/png"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = DynamicImage::new_rgb8(w, h);
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn asset_2_the_type_comes_from_the_bytes() {
        assert!(matches!(
            take(b"<html><script>alert(1)</script></html>", 1 << 20),
            Err(Refused::Unsupported(_))
        ));
        let p = take(&png(3, 2), 1 << 20).unwrap();
        assert_eq!((p.mime, p.w, p.h, p.animated), ("image/png", 3, 2, false));
        let heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic";
        match take(heic, 1 << 20) {
            Err(Refused::Unsupported(m)) => assert!(m.contains("convert it to PNG or JPEG")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn asset_5_a_picture_over_the_pixel_limit_is_refused_before_decoding() {
        // A PNG header declaring 100,000 x 100,000 pixels, and nothing behind it.
        let mut b = png(1, 1);
        b[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        b[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32fast::hash(&b[12..29]);
        b[29..33].copy_from_slice(&crc.to_be_bytes());
        match take(&b, 50_000_000) {
            Err(Refused::Invalid(m)) => assert!(m.contains("pixels"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(take(&png(10, 10), 50), Err(Refused::Invalid(_))));
    }

    #[test]
    fn asset_4_svg_loses_script_handlers_and_external_references() {
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="30">
<script>alert(1)</script>
<rect width="10" height="10" onclick="alert(2)"/>
<a href="javascript:alert(3)"><circle r="3"/></a>
<image href="file:///etc/passwd" width="5" height="5"/>
<foreignObject><div>x</div></foreignObject>
</svg>"#;
        let p = take(svg, 1 << 20).unwrap();
        let text = String::from_utf8(p.bytes).unwrap();
        for bad in [
            "script",
            "onclick",
            "javascript:",
            "/etc/passwd",
            "foreignObject",
        ] {
            assert!(!text.contains(bad), "{bad} left in {text}");
        }
        assert_eq!((p.mime, p.w, p.h), ("image/svg+xml", 40, 30));
    }

    #[test]
    fn asset_6_jpeg_and_png_metadata_is_dropped() {
        let mut jpeg = Vec::new();
        let img = DynamicImage::new_rgb8(4, 4);
        img.write_to(&mut Cursor::new(&mut jpeg), ImageFormat::Jpeg)
            .unwrap();
        // An APP1 EXIF segment with a GPS tag's text after the SOI marker.
        let exif = b"Exif\0\0GPSLatitude 52.1";
        let mut with = vec![0xFF, 0xD8, 0xFF, 0xE1];
        with.extend_from_slice(&((exif.len() + 2) as u16).to_be_bytes());
        with.extend_from_slice(exif);
        with.extend_from_slice(&jpeg[2..]);
        let p = take(&with, 1 << 20).unwrap();
        assert!(!p.bytes.windows(4).any(|w| w == b"Exif"));
        assert_eq!((p.w, p.h), (4, 4));
        let mut b = png(2, 2);
        let mut text = Vec::new();
        let body = b"Comment\0GPS here";
        text.extend_from_slice(&(body.len() as u32).to_be_bytes());
        text.extend_from_slice(b"tEXt");
        text.extend_from_slice(body);
        text.extend_from_slice(&[0, 0, 0, 0]);
        b.splice(33..33, text);
        let p = take(&b, 1 << 20).unwrap();
        assert!(!p.bytes.windows(3).any(|w| w == b"GPS"));
    }

    #[test]
    fn a_large_picture_has_a_preview_a_small_one_does_not() {
        let big = png(2048, 100);
        let (small, mime) = preview(&big, "image/png").unwrap();
        assert_eq!(mime, "image/png");
        let p = take(&small, 1 << 30).unwrap();
        assert_eq!((p.w, p.h), (1024, 50));
        assert!(preview(&png(10, 10), "image/png").is_none());
    }
}
