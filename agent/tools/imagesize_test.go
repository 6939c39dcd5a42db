package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// encodedImages are real encodings of images of a few sizes and kinds:
// RGBA, gray and paletted PNGs, JPEGs in color and gray, a GIF.
func encodedImages(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, sz := range []image.Point{{1, 1}, {3, 2}, {640, 17}, {17, 1200}} {
		r := image.Rect(0, 0, sz.X, sz.Y)
		rgba, gray, pal := image.NewRGBA(r), image.NewGray(r), image.NewPaletted(r, palette.Plan9)
		rgba.Set(0, 0, color.RGBA{255, 0, 0, 255})
		enc := func(name string, f func(*bytes.Buffer) error) {
			var b bytes.Buffer
			if err := f(&b); err != nil {
				t.Fatalf("encode %s: %v", name, err)
			}
			out[name] = b.Bytes()
		}
		tag := string(rune('a'+len(out)/6)) + "-"
		enc(tag+"rgba.png", func(b *bytes.Buffer) error { return png.Encode(b, rgba) })
		enc(tag+"gray.png", func(b *bytes.Buffer) error { return png.Encode(b, gray) })
		enc(tag+"pal.png", func(b *bytes.Buffer) error { return png.Encode(b, pal) })
		enc(tag+"rgba.jpg", func(b *bytes.Buffer) error { return jpeg.Encode(b, rgba, &jpeg.Options{Quality: 90}) })
		enc(tag+"gray.jpg", func(b *bytes.Buffer) error { return jpeg.Encode(b, gray, nil) })
		enc(tag+"pal.gif", func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) })
	}
	// A JPEG whose frame comes after an APP1 segment (Exif), with fill bytes.
	j := out["a-rgba.jpg"]
	app1 := append([]byte{0xff, 0xe1, 0x01, 0x02}, bytes.Repeat([]byte("E"), 0x0100)...)
	out["exif.jpg"] = append(append(append([]byte{}, j[:2]...), append(app1, 0xff, 0xff)...), j[2:]...)
	return out
}

func mimeOf(name string) string {
	switch {
	case bytes.HasSuffix([]byte(name), []byte(".png")):
		return "image/png"
	case bytes.HasSuffix([]byte(name), []byte(".jpg")):
		return "image/jpeg"
	}
	return "image/gif"
}

// TestImageSize: the sizes of real encodings are those of the image
// decoders' DecodeConfig, and a cut header or the wrong type gives none.
func TestImageSize(t *testing.T) {
	for name, data := range encodedImages(t) {
		t.Run(name, func(t *testing.T) {
			c, _, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("DecodeConfig(%s): %v", name, err)
			}
			w, h, ok := ImageSize(mimeOf(name), data)
			if !ok || w != c.Width || h != c.Height {
				t.Errorf("ImageSize(%s) = %d, %d, %v; want %d, %d, true", name, w, h, ok, c.Width, c.Height)
			}
			if _, _, ok := ImageSize(mimeOf(name), data[:min(len(data), 9)]); ok {
				t.Errorf("ImageSize(%s cut to 9 bytes) = ok, want none", name)
			}
			if _, _, ok := ImageSize("image/webp", data); ok {
				t.Errorf("ImageSize(%s as WebP) = ok, want none", name)
			}
		})
	}
	if _, _, ok := ImageSize("image/bmp", []byte("BM")); ok {
		t.Errorf("ImageSize(image/bmp) = ok, want none")
	}
}

// FuzzImageSize: no input panics, and where the standard decoders read a
// size with both sides positive from a PNG, JPEG or GIF header, ImageSize
// reads the same.
func FuzzImageSize(f *testing.F) {
	for _, data := range encodedImages(f) {
		f.Add(data)
	}
	f.Add([]byte("\xff\xd8\xff\xc0\x00\x11\x08"))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8X\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x03\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mime := range []string{"image/png", "image/jpeg", "image/gif", "image/webp"} {
			ImageSize(mime, data)
		}
		c, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || c.Width <= 0 || c.Height <= 0 {
			return // no size, which ImageSize reports as none
		}
		w, h, ok := ImageSize("image/"+format, data)
		if !ok || w != c.Width || h != c.Height {
			t.Errorf("ImageSize(image/%s) = %d, %d, %v; DecodeConfig gives %dx%d", format, w, h, ok, c.Width, c.Height)
		}
	})
}
