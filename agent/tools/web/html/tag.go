package html

// tag names the elements the text extraction treats specially; every
// other element is tagOther and counts as inline.
type tag uint8

const (
	tagOther tag = iota
	tagRoot
	tagText
	tagA
	tagAbbr
	tagAddress
	tagArticle
	tagAside
	tagAudio
	tagB
	tagBase
	tagBlockquote
	tagBody
	tagBr
	tagButton
	tagCanvas
	tagCaption
	tagCenter
	tagCode
	tagDd
	tagDetails
	tagDialog
	tagDiv
	tagDl
	tagDt
	tagEm
	tagEmbed
	tagFieldset
	tagFigcaption
	tagFigure
	tagFooter
	tagForm
	tagH1
	tagH2
	tagH3
	tagH4
	tagH5
	tagH6
	tagHead
	tagHeader
	tagHgroup
	tagHr
	tagHTML
	tagI
	tagIframe
	tagImg
	tagInput
	tagKbd
	tagLabel
	tagLegend
	tagLi
	tagLink
	tagMain
	tagMath
	tagMenu
	tagMeta
	tagNav
	tagNoembed
	tagNoframes
	tagNoscript
	tagObject
	tagOl
	tagOption
	tagP
	tagPicture
	tagPlaintext
	tagPre
	tagSamp
	tagScript
	tagSearch
	tagSection
	tagSelect
	tagSmall
	tagSpan
	tagStrong
	tagStyle
	tagSub
	tagSummary
	tagSup
	tagSvg
	tagTable
	tagTbody
	tagTd
	tagTemplate
	tagTextarea
	tagTfoot
	tagTh
	tagThead
	tagTitle
	tagTr
	tagTt
	tagU
	tagUl
	tagVar
	tagVideo
	tagWbr
	tagXMP
	tagArea
	tagCol
	tagSource
	tagTrack
	tagParam
	tagMark
	tagQ
	tagS
	tagCite
	tagTime
	tagDel
	tagIns
	tagDfn
	tagMap
	tagDatalist
)

func tagNames() map[string]tag {
	return tagNamesLazy.get(func() map[string]tag {
		return map[string]tag{
			"a": tagA, "abbr": tagAbbr, "address": tagAddress, "article": tagArticle, "aside": tagAside,
			"audio": tagAudio, "b": tagB, "base": tagBase, "blockquote": tagBlockquote, "body": tagBody,
			"br": tagBr, "button": tagButton, "canvas": tagCanvas, "caption": tagCaption, "center": tagCenter,
			"code": tagCode, "dd": tagDd, "details": tagDetails, "dialog": tagDialog, "div": tagDiv,
			"dl": tagDl, "dt": tagDt, "em": tagEm, "embed": tagEmbed, "fieldset": tagFieldset,
			"figcaption": tagFigcaption, "figure": tagFigure, "footer": tagFooter, "form": tagForm,
			"h1": tagH1, "h2": tagH2, "h3": tagH3, "h4": tagH4, "h5": tagH5, "h6": tagH6,
			"head": tagHead, "header": tagHeader, "hgroup": tagHgroup, "hr": tagHr, "html": tagHTML,
			"i": tagI, "iframe": tagIframe, "img": tagImg, "input": tagInput, "kbd": tagKbd,
			"label": tagLabel, "legend": tagLegend, "li": tagLi, "link": tagLink, "main": tagMain,
			"math": tagMath, "menu": tagMenu, "meta": tagMeta, "nav": tagNav, "noembed": tagNoembed,
			"noframes": tagNoframes, "noscript": tagNoscript, "object": tagObject, "ol": tagOl,
			"option": tagOption, "p": tagP, "picture": tagPicture, "plaintext": tagPlaintext, "pre": tagPre,
			"listing": tagPre, "samp": tagSamp, "script": tagScript, "search": tagSearch, "section": tagSection,
			"select": tagSelect, "small": tagSmall, "span": tagSpan, "strong": tagStrong, "style": tagStyle,
			"sub": tagSub, "summary": tagSummary, "sup": tagSup, "svg": tagSvg, "table": tagTable,
			"tbody": tagTbody, "td": tagTd, "template": tagTemplate, "textarea": tagTextarea,
			"tfoot": tagTfoot, "th": tagTh, "thead": tagThead, "title": tagTitle, "tr": tagTr, "tt": tagTt,
			"u": tagU, "ul": tagUl, "var": tagVar, "video": tagVideo, "wbr": tagWbr, "xmp": tagXMP,
			"area": tagArea, "col": tagCol, "source": tagSource, "track": tagTrack, "param": tagParam,
			"mark": tagMark, "q": tagQ, "s": tagS, "cite": tagCite, "time": tagTime, "del": tagDel,
			"ins": tagIns, "dfn": tagDfn, "map": tagMap, "datalist": tagDatalist, "image": tagImg,
		}
	})
}

var tagNamesLazy lazy[map[string]tag]

// lookupTag returns the tag of a lower-case element name, and the name as
// a string for the elements that are tagOther.
func lookupTag(name []byte) (tag, string) {
	if tg, ok := tagNames()[string(name)]; ok {
		return tg, ""
	}
	return tagOther, string(name)
}

// isVoid reports elements that have no end tag.
func isVoid(t tag) bool {
	switch t {
	case tagArea, tagBase, tagBr, tagCol, tagEmbed, tagHr, tagImg, tagInput, tagLink, tagMeta,
		tagSource, tagTrack, tagWbr, tagParam:
		return true
	}
	return false
}

// closesP reports start tags that close an open p element.
func closesP(t tag) bool {
	switch t {
	case tagAddress, tagArticle, tagAside, tagBlockquote, tagCenter, tagDetails, tagDialog,
		tagDiv, tagDl, tagFieldset, tagFigcaption, tagFigure, tagFooter, tagForm,
		tagH1, tagH2, tagH3, tagH4, tagH5, tagH6, tagHeader, tagHgroup, tagHr, tagMain,
		tagMenu, tagNav, tagOl, tagP, tagPre, tagSection, tagSummary, tagTable, tagUl,
		tagLi, tagDd, tagDt, tagPlaintext, tagXMP, tagSearch:
		return true
	}
	return false
}

func isHeading(t tag) bool { return t >= tagH1 && t <= tagH6 }

// isInline reports the phrasing elements whose end tags do not reach past
// a block.
func isInline(t tag) bool {
	switch t {
	case tagA, tagAbbr, tagB, tagCode, tagEm, tagI, tagKbd, tagLabel, tagSamp, tagSmall, tagSpan,
		tagStrong, tagSub, tagSup, tagTt, tagU, tagVar, tagMark, tagQ, tagS, tagCite, tagTime,
		tagDel, tagIns, tagDfn:
		return true
	}
	return false
}
