package tools

import "encoding/binary"

// ImageSize reads the pixel dimensions from the header of an image of
// type mime (image/png, image/jpeg, image/gif or image/webp); ok is false
// when the header is not one of that type or holds no size (a zero side
// is none). It reads the few header bytes that hold the size and decodes
// nothing: zut links no image decoder (image/png, image/jpeg and
// image/gif are 150 KB of binary and three initialisers at every start).
// For the three the standard library reads, the sizes are the ones its
// DecodeConfig gives where both are positive (FuzzImageSize).
func ImageSize(mime string, data []byte) (w, h int, ok bool) {
	switch mime {
	case "image/png":
		return pngSize(data)
	case "image/jpeg":
		return jpegSize(data)
	case "image/gif":
		return gifSize(data)
	case "image/webp":
		return webpSize(data)
	}
	return 0, 0, false
}

// pngSize reads the IHDR chunk, which comes first after the signature.
func pngSize(data []byte) (w, h int, ok bool) {
	if len(data) < 24 || string(data[:8]) != "\x89PNG\r\n\x1a\n" || string(data[12:16]) != "IHDR" {
		return 0, 0, false
	}
	w, h = int(binary.BigEndian.Uint32(data[16:20])), int(binary.BigEndian.Uint32(data[20:24]))
	if w <= 0 || h <= 0 || w > 1<<31-1 || h > 1<<31-1 {
		return 0, 0, false
	}
	return w, h, true
}

// gifSize reads the logical screen descriptor after the signature.
func gifSize(data []byte) (w, h int, ok bool) {
	if len(data) < 10 || string(data[:6]) != "GIF87a" && string(data[:6]) != "GIF89a" {
		return 0, 0, false
	}
	w, h = int(binary.LittleEndian.Uint16(data[6:8])), int(binary.LittleEndian.Uint16(data[8:10]))
	return w, h, w > 0 && h > 0
}

// jpegSize walks the markers up to the first start of frame (SOF0..SOF15
// but DHT, JPG and DAC), skipping every other segment by its length.
func jpegSize(data []byte) (w, h int, ok bool) {
	if len(data) < 2 || data[0] != 0xff || data[1] != 0xd8 {
		return 0, 0, false
	}
	for i := 2; ; {
		// A marker is 0xff and a code; more 0xff may pad before the code.
		for i < len(data) && data[i] != 0xff {
			i++ // stray bytes between segments, as decoders tolerate
		}
		for i < len(data) && data[i] == 0xff {
			i++
		}
		if i >= len(data) {
			return 0, 0, false
		}
		code := data[i]
		i++
		switch {
		case code == 0x00 || code == 0xd8 || code >= 0xd0 && code <= 0xd7 || code == 0x01:
			continue // no length: an escaped 0xff among stray bytes, SOI, RSTn, TEM
		case code == 0xd9 || code == 0xda:
			return 0, 0, false // end of image or start of scan before a frame
		}
		if i+2 > len(data) {
			return 0, 0, false
		}
		n := int(binary.BigEndian.Uint16(data[i : i+2]))
		if n < 2 || i+n > len(data) {
			return 0, 0, false
		}
		if code >= 0xc0 && code <= 0xcf && code != 0xc4 && code != 0xc8 && code != 0xcc {
			if n < 7 {
				return 0, 0, false
			}
			h, w = int(binary.BigEndian.Uint16(data[i+3:i+5])), int(binary.BigEndian.Uint16(data[i+5:i+7]))
			if w == 0 || h == 0 {
				return 0, 0, false
			}
			return w, h, true
		}
		i += n
	}
}

// webpSize reads the VP8X, VP8 or VP8L header after the RIFF header.
func webpSize(data []byte) (w, h int, ok bool) {
	if len(data) < 30 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(data[12:16]) {
	case "VP8X":
		w = int(data[24]) | int(data[25])<<8 | int(data[26])<<16
		h = int(data[27]) | int(data[28])<<8 | int(data[29])<<16
		return w + 1, h + 1, true
	case "VP8 ":
		if data[23] != 0x9d || data[24] != 0x01 || data[25] != 0x2a {
			return 0, 0, false
		}
		w = int(binary.LittleEndian.Uint16(data[26:28]) & 0x3fff)
		h = int(binary.LittleEndian.Uint16(data[28:30]) & 0x3fff)
		return w, h, true
	case "VP8L":
		if data[20] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(data[21:25])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	}
	return 0, 0, false
}
