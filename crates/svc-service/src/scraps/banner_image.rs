//! What becomes a banner image: a PNG, JPEG or WebP of at most
//! [`MAX_BANNER_BYTES`], decoded under [`limits`] (a decompression bomb is
//! refused before its pixels are allocated) and encoded again in its own
//! format, so that nothing of the upload but its pixels is kept (EXIF, XMP,
//! ICC profiles, comments and text chunks are dropped).

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::codecs::webp::WebPEncoder;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};

/// The largest upload (the REST route's body limit is the same).
pub const MAX_BANNER_BYTES: usize = 2 * 1024 * 1024;
/// Widest and tallest image decoded.
pub const MAX_SIDE: u32 = 8192;
/// Most memory the decoder may allocate.
const MAX_ALLOC: u64 = 128 * 1024 * 1024;
/// The re-encoded JPEG's quality.
const JPEG_QUALITY: u8 = 85;

/// An image as svc keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CleanImage {
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub content_type: &'static str,
    /// `png`, `jpg` or `webp`.
    pub extension: &'static str,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// The limits every banner is decoded under.
pub fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    limits
}

/// Why an upload is not a banner: the message the 422 carries.
pub fn clean(bytes: &[u8]) -> Result<CleanImage, String> {
    if bytes.is_empty() {
        return Err("is empty: choose a PNG, JPEG or WebP image".into());
    }
    if bytes.len() > MAX_BANNER_BYTES {
        return Err(format!("is {} bytes: a banner is at most 2 MiB", bytes.len()));
    }
    let format = image::guess_format(bytes).map_err(|_| "is not a PNG, JPEG or WebP image".to_string())?;
    if !matches!(format, ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP) {
        return Err(format!("is a {} image: a banner is a PNG, JPEG or WebP image", format.extensions_str()[0]));
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits());
    let decoded = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => {
            format!("is too large to decode: a banner is at most {MAX_SIDE} by {MAX_SIDE} pixels")
        }
        _ => "cannot be decoded: the image is damaged or truncated".to_string(),
    })?;
    encode(decoded, format)
}

/// `image` encoded in `format` (PNG, JPEG or WebP), nothing but its pixels.
pub fn encode(image: DynamicImage, format: ImageFormat) -> Result<CleanImage, String> {
    let (width, height) = (image.width(), image.height());
    let mut out = Vec::new();
    let failed = |e: image::ImageError| format!("could not be encoded again ({e})");
    let (content_type, extension) = match format {
        ImageFormat::Jpeg => {
            let rgb = DynamicImage::ImageRgb8(image.to_rgb8());
            rgb.write_with_encoder(JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)).map_err(failed)?;
            ("image/jpeg", "jpg")
        }
        ImageFormat::WebP => {
            let rgba = DynamicImage::ImageRgba8(image.to_rgba8());
            rgba.write_with_encoder(WebPEncoder::new_lossless(&mut out)).map_err(failed)?;
            ("image/webp", "webp")
        }
        _ => {
            image.write_to(&mut Cursor::new(&mut out), ImageFormat::Png).map_err(failed)?;
            ("image/png", "png")
        }
    };
    Ok(CleanImage { content_type, extension, bytes: out, width, height })
}

/// A screenshot (a PNG the browser took) as a banner: decoded under the
/// same limits and kept as PNG.
pub fn clean_screenshot(png: &[u8]) -> Result<CleanImage, String> {
    let mut reader = ImageReader::with_format(Cursor::new(png), ImageFormat::Png);
    reader.limits(limits());
    let decoded = reader.decode().map_err(|e| format!("the screenshot cannot be decoded ({e})"))?;
    encode(decoded, ImageFormat::Png)
}

#[cfg(test)]
mod tests {
    use image::{Rgb, RgbImage};

    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = RgbImage::from_pixel(width, height, Rgb([10, 200, 30]));
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
        out
    }

    /// A JPEG with an APP1 Exif segment naming a camera, right after SOI.
    pub(crate) fn jpeg_with_exif() -> Vec<u8> {
        let img = RgbImage::from_pixel(16, 9, Rgb([200, 10, 30]));
        let mut plain = Vec::new();
        DynamicImage::ImageRgb8(img).write_with_encoder(JpegEncoder::new_with_quality(&mut plain, 90)).unwrap();
        let payload = b"Exif\0\0MM\0*\0\0\0\x08SecretCameraModel-1234";
        let mut out = plain[..2].to_vec();
        out.extend_from_slice(&[0xFF, 0xE1]);
        out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(payload);
        out.extend_from_slice(&plain[2..]);
        out
    }

    #[test]
    fn a_png_comes_back_as_a_png_of_the_same_size() {
        let clean = clean(&png(32, 18)).unwrap();
        assert_eq!((clean.content_type, clean.width, clean.height), ("image/png", 32, 18));
        assert_eq!(image::guess_format(&clean.bytes).unwrap(), ImageFormat::Png);
    }

    #[test]
    fn exif_is_stripped_from_a_jpeg() {
        let upload = jpeg_with_exif();
        assert!(upload.windows(17).any(|w| w == b"SecretCameraModel"));
        let clean = clean(&upload).unwrap();
        assert_eq!(clean.content_type, "image/jpeg");
        assert!(!clean.bytes.windows(4).any(|w| w == b"Exif"), "Exif kept");
        assert!(!clean.bytes.windows(17).any(|w| w == b"SecretCameraModel"));
    }

    #[test]
    fn what_is_not_an_image_is_refused() {
        assert!(clean(b"").unwrap_err().contains("empty"));
        assert!(clean(b"hello, this is text").unwrap_err().contains("not a PNG, JPEG or WebP"));
        let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
        assert!(clean(gif).unwrap_err().contains("gif"), "{:?}", clean(gif));
        let whole = png(64, 64);
        assert!(clean(&whole[..whole.len() / 2]).unwrap_err().contains("damaged or truncated"));
        assert!(clean(&vec![0u8; MAX_BANNER_BYTES + 1]).unwrap_err().contains("at most 2 MiB"));
    }

    /// CRC-32 (ISO-HDLC), as PNG chunks carry it.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn a_decompression_bomb_is_refused_before_decoding() {
        // A well-formed PNG whose header claims 20000 x 20000 pixels (1.6
        // GB of RGBA): the header's CRC made right, so that only the
        // limits can refuse it.
        let mut bomb = png(1, 1);
        bomb[16..20].copy_from_slice(&20_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&20_000u32.to_be_bytes());
        let crc = crc32(&bomb[12..29]);
        bomb[29..33].copy_from_slice(&crc.to_be_bytes());
        let why = clean(&bomb).unwrap_err();
        assert!(why.contains("too large to decode") && why.contains("8192"), "{why}");
    }
}
