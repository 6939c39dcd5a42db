// Package telegram is the Telegram adapter of zut's bot host: a Bot API
// client over net/http (calls, multipart uploads, file downloads, token
// scrubbed from every error), long polling with a persisted offset and
// backoff on errors and 429s, pairing of the one allowed user, the token
// store, and the conversion of the model's markdown to Telegram entities
// (HTML or MarkdownV2) split at the 4096-character limit. Bot implements
// bot.Transport.
package telegram
