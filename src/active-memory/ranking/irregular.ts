/**
 * Irregular English verb forms and their base form ("drew" → "draw", "bought" → "buy"): Porter
 * stemming only strips suffixes, so "drawing" and "drew" never met and a question asking what
 * someone drew missed the message saying they drew it. The list is the common irregular verbs of
 * English grammar, not drawn from any evaluation set; forms that are more often another word are
 * left out ("left", "saw", "rose", "fell", "won" — which is also the head of "won't").
 * @module
 */

/** Groups of a base form followed by its irregular past forms. */
const GROUPS =
  'be was were been; begin began begun; bite bitten; blow blew blown; break broke broken; ' +
  'bring brought; build built; burn burnt; buy bought; catch caught; choose chose chosen; ' +
  'come came; creep crept; deal dealt; dig dug; do did done; draw drew drawn; dream dreamt; ' +
  'drink drank drunk; drive drove driven; eat ate eaten; fall fallen; feed fed; feel felt; ' +
  'fight fought; find found; flee fled; fly flew flown; forbid forbade forbidden; ' +
  'forget forgot forgotten; forgive forgave forgiven; freeze froze frozen; get got; ' +
  'give gave given; go went gone; grow grew grown; hang hung; have had; hear heard; ' +
  'hide hid hidden; hold held; keep kept; know knew known; lead led; learn learnt; lend lent; ' +
  'lose lost; make made; mean meant; meet met; pay paid; ride rode ridden; rise risen; run ran; ' +
  'say said; see seen; seek sought; sell sold; send sent; shake shook shaken; shine shone; ' +
  'sing sang sung; sink sank sunk; sleep slept; speak spoke spoken; spend spent; stand stood; ' +
  'steal stole stolen; sting stung; strike struck; swim swam swum; swing swung; take took taken; ' +
  'teach taught; tear tore torn; tell told; think thought; throw threw thrown; ' +
  'understand understood; wake woke woken; wear wore worn; weave wove woven; write wrote written';

const BASE: ReadonlyMap<string, string> = new Map(
  GROUPS.split('; ').flatMap((group) => {
    const [base, ...forms] = group.split(' ');
    return forms.map((form) => [form, base as string] as const);
  }),
);

/** The base form of an irregular verb form (`word` itself for any other word). */
export function baseForm(word: string): string {
  return BASE.get(word) ?? word;
}
