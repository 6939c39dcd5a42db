package html

// state is one state of the tokenizer, named as in the standard. The
// order matters in places: each "less-than sign" state is followed by its
// "end tag open" and "end tag name" states, which the tokenizer reaches by
// incrementing.
type state uint8

const (
	sData state = iota
	sRCDATA
	sRAWTEXT
	sScript
	sPlaintext
	sTagOpen
	sEndTagOpen
	sTagName

	sRCDATALt
	sRCDATAEndOpen
	sRCDATAEndName
	sRAWTEXTLt
	sRAWTEXTEndOpen
	sRAWTEXTEndName

	sScriptLt
	sScriptEndOpen
	sScriptEndName
	sScriptEscStart
	sScriptEscStartDash
	sScriptEsc
	sScriptEscDash
	sScriptEscDashDash
	sScriptEscLt
	sScriptEscEndOpen
	sScriptEscEndName
	sScriptDblEscStart
	sScriptDblEsc
	sScriptDblEscDash
	sScriptDblEscDashDash
	sScriptDblEscLt
	sScriptDblEscEnd

	sBeforeAttrName
	sAttrName
	sAfterAttrName
	sBeforeAttrValue
	sAttrValueDQ
	sAttrValueSQ
	sAttrValueUQ
	sAfterAttrValueQ
	sSelfClosing

	sBogusComment
	sMarkupDecl
	sCommentStart
	sCommentStartDash
	sComment
	sCommentLt
	sCommentLtBang
	sCommentLtBangDash
	sCommentLtBangDashDash
	sCommentEndDash
	sCommentEnd
	sCommentEndBang

	sDoctype
	sBeforeDoctypeName
	sDoctypeName
	sAfterDoctypeName
	sAfterPublicKeyword
	sBeforePublicID
	sPublicIDDQ
	sPublicIDSQ
	sAfterPublicID
	sBetweenIDs
	sAfterSystemKeyword
	sBeforeSystemID
	sSystemIDDQ
	sSystemIDSQ
	sAfterSystemID
	sBogusDoctype

	sCDATA
	sCDATABracket
	sCDATAEnd
)

// textStateOf is the text state that a less-than sign, end tag open or end
// tag name state falls back to when what follows is not an end tag.
func textStateOf(s state) state {
	switch s {
	case sRCDATALt, sRCDATAEndOpen, sRCDATAEndName:
		return sRCDATA
	case sRAWTEXTLt, sRAWTEXTEndOpen, sRAWTEXTEndName:
		return sRAWTEXT
	case sScriptLt, sScriptEndOpen, sScriptEndName:
		return sScript
	case sScriptEscLt, sScriptEscEndOpen, sScriptEscEndName:
		return sScriptEsc
	}
	return sData
}
