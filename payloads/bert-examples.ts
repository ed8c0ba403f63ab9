/**
 * Built-in SQuAD-style question/context pairs for BERT payloads, written for this project.
 * Contexts vary in length so that the short ones pad and the long one needs several doc_stride windows.
 */

/** One question about one context, with the answer text found in the context. */
export interface QaPair {
  id: string;
  question: string;
  context: string;
  answer: string;
}

const RIVER =
  'The river rises in a peat bog on the northern slope of the plateau, roughly nine hundred metres above sea ' +
  'level. For its first twenty kilometres it is little more than a stream, falling quickly through a narrow ' +
  'valley lined with birch and rowan. Below the village of Carrow the valley opens out, the gradient eases and ' +
  'the river begins to meander across a broad flood plain of meadows and willow scrub. Two tributaries join it ' +
  'here: the Aldern from the west, which drains a chain of small lakes, and the Moss Water from the east, which ' +
  'carries the dark, acidic water of the moorland. Medieval millers built eleven weirs along this stretch; seven ' +
  'of them survive, although only one still drives a wheel, at the restored mill of Haverley, which grinds flour ' +
  'for visitors on summer weekends. In the eighteenth century the lower river was canalised so that barges could ' +
  'reach the market town of Dunmere, and a towpath was cut along the southern bank. Trade declined after the ' +
  'railway arrived in 1851, and by 1900 the locks had fallen into disrepair. A volunteer trust restored three of ' +
  'them between 1978 and 1994, and pleasure boats now travel as far upstream as the aqueduct at Kelby. The river ' +
  'is also known for its salmon, which return each autumn to spawn in the gravel beds above Carrow. Numbers fell ' +
  'sharply in the 1960s because of pollution from a paper works, but they recovered after the works closed in ' +
  '1983 and fish passes were added to the weirs. Surveys by the regional water authority counted more than four ' +
  'thousand returning salmon in 2019, the highest figure since records began. Below Dunmere the river becomes ' +
  'tidal. It widens into an estuary of mudflats and salt marsh that supports large flocks of wading birds in ' +
  'winter, including knot, dunlin and bar-tailed godwit, and the whole estuary has been a protected nature ' +
  'reserve since 1991. A ferry crosses the mouth of the estuary between April and October, linking the fishing ' +
  'harbour of Saltcote with the dunes on the far shore, where a lighthouse built in 1867 still guides vessels ' +
  'past the sandbanks. The total length of the river, from the bog to the sea, is one hundred and forty-two ' +
  'kilometres, which makes it the longest river lying entirely within the county. Its catchment covers about two ' +
  'thousand square kilometres and is home to roughly three hundred thousand people, most of whom live in Dunmere ' +
  'and the villages along the lower valley. Flooding has been a recurring problem: after severe floods in 2007, ' +
  'the authority built earth embankments around the lower town and planted new woodland in the upper valley to ' +
  'slow the run-off from heavy rain.';

/** The built-in pairs; several questions share the long river context. */
export const BUILTIN_QA: readonly QaPair[] = [
  {
    id: 'builtin-01',
    question: 'What does a dynamic batcher combine?',
    context:
      'A dynamic batcher holds individual inference requests for a short, configurable delay and combines ' +
      'them into one larger batch, so that the model runs fewer, fuller executions and throughput rises.',
    answer: 'individual inference requests',
  },
  {
    id: 'builtin-02',
    question: 'Which protocol does the server speak on port 8001?',
    context:
      'The server listens for HTTP requests on port 8000, for gRPC requests on port 8001 and exposes its ' +
      'Prometheus metrics on port 8002.',
    answer: 'gRPC',
  },
  {
    id: 'builtin-03',
    question: 'How many handwritten digits are in the test set?',
    context:
      'The test set contains ten thousand handwritten digits, each a grey-scale image of twenty-eight by ' +
      'twenty-eight pixels, written by a different group of people than the training set.',
    answer: 'ten thousand',
  },
  {
    id: 'builtin-04',
    question: 'When did the lighthouse start guiding vessels?',
    context: RIVER,
    answer: '1867',
  },
  {
    id: 'builtin-05',
    question: 'How long is the river?',
    context: RIVER,
    answer: 'one hundred and forty-two kilometres',
  },
  {
    id: 'builtin-06',
    question: 'Why did salmon numbers fall in the 1960s?',
    context: RIVER,
    answer: 'pollution from a paper works',
  },
  {
    id: 'builtin-07',
    question: 'What colour is the kettle on the top shelf?',
    context:
      'On the top shelf of the kitchen dresser stands a copper kettle, polished until it shines, next to a row ' +
      'of blue and white plates that belonged to the family for three generations.',
    answer: 'copper',
  },
  {
    id: 'builtin-08',
    question: 'What limits the latency of a request?',
    context:
      'Each request is allowed a latency budget. The queue delay adds directly to it, so a longer delay buys ' +
      'larger batches at the cost of slower answers; the budget, not the throughput, sets how long the queue may wait.',
    answer: 'a latency budget',
  },
  {
    id: 'builtin-09',
    question: 'Which harbour does the ferry link with the dunes?',
    context: RIVER,
    answer: 'the fishing harbour of Saltcote',
  },
  {
    id: 'builtin-10',
    question: 'Who ate the last slice of the naïve baker’s cake?',
    context:
      'Nobody admitted it at first. Later, the café owner confessed: she ate the last slice of the cake while ' +
      'the baker was out delivering bread to the hotel on the hill.',
    answer: 'the café owner',
  },
];
