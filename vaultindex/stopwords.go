package vaultindex

import "strings"

// stopWords are the words of English, German, French, Spanish and
// Portuguese that say how a question is asked rather than what it is
// about, folded as the index folds (no case, no accents). A query leaves
// them out when it has other words (see query.dropStopWords); the index
// keeps them, so a quoted phrase still finds them. "it" and "us" are not
// among them: IT and the US are things people write notes about.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, list := range []string{
		// English
		"a an and any are as at be been but by can could did do does doing for from had has have how i if in into is " +
			"me my of on or our should so some than that the their them then there these they this those to was we " +
			"were what when where which while who whom why will with would you your",
		// German
		"aber als am an auch auf aus bei bin bis das dass dem den der des die doch du ein eine einem einen einer eines " +
			"er es fur hat hatte ich ihr im in ist kann mein mit muss nach nicht noch nur oder ob sein sich sie sind so " +
			"soll uber um und uns von vor war was weil wenn wer wie wie wir wird wo zu zum zur",
		// French
		"au aux avec ce ces comment dans de des du elle en est et je la le les leur ma mais me mes mon ne nous on ou " +
			"par pas pour quand que quel quelle qui sa se ses son sont sur ta te tes ton tu un une vos votre vous",
		// Spanish and Portuguese
		"al algo como con cual cuando da de del dos el ella em en es esta este eu la las lo los mas me mi muito na no " +
			"nos o os para pero por porque qual que quien se sem ser seu sua su sus te tem um uma un una uno y",
	} {
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
	}
	return m
}()
