import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VARIANTS } from '../impl/variants/index.ts';
import { decodeToken, encodeToken, ReplayTokenError } from './token.ts';
import { workloadArb } from './workload.ts';
import { scheduleArb } from './schedule.ts';

describe('replay tokens', () => {
  it('round-trip every generated counterexample exactly', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VARIANTS).chain((v) => workloadArb(v)), fc.option(fc.constant(0.1), { nil: undefined }).chain((rate) => scheduleArb(2, 8, 'mixed', rate)), fc.option(fc.constant('threshold-inclusive' as const), { nil: undefined }), (workload, schedule, bug) => {
        const c = { workload, schedule, ...(bug === undefined ? {} : { bug }) };
        expect(decodeToken(encodeToken(c))).toEqual(c);
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('keeps the overrides of the first compare-and-sets and deletes, and drops empty ones', () => {
    const c = { workload: decodeToken('sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[]}').toString('base64url')).workload, schedule: { choices: [], starve: [], faults: { storage: [0, 1], aborts: [], heal: 9, cas: [2, 0], deletes: [0, 1, 4] } } };
    expect(decodeToken(encodeToken(c))).toEqual(c);
    const none = { ...c, schedule: { ...c.schedule, faults: { storage: [1], aborts: [], heal: 9, deletes: [] } } };
    expect(decodeToken(encodeToken(none)).schedule.faults).toEqual({ storage: [1], aborts: [], heal: 9 });
  });

  it('a token without a second sink decodes to one sink; one with `sl` to two', () => {
    const one = decodeToken('sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[]}').toString('base64url'));
    expect(one.workload.sinkLoads).toBeUndefined();
    const two = decodeToken('sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"sl":[["1"]]}').toString('base64url'));
    expect(two.workload.sinkLoads).toEqual([[['medium']]]);
  });

  it.each([
    ['xx', /must start with "sb1\."/],
    ['sb1.%%%', /not valid base64url JSON/],
    ['sb1.' + Buffer.from('{"v":"sideways"}').toString('base64url'), /invalid variant/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1]}').toString('base64url'), /invalid shape/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[]}').toString('base64url'), /invalid knob/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["9"]}').toString('base64url'), /invalid load class/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[-1]}').toString('base64url'), /invalid choices/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"b":"nope"}').toString('base64url'), /invalid bug name/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"sideways","z":[],"c":[]}').toString('base64url'), /invalid pacing/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[[1]],"c":[]}').toString('base64url'), /invalid starved actor/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":3,"c":[]}').toString('base64url'), /invalid starve list/],
    ['sb1.' + Buffer.from('{"v":"off","s":[0,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[]}').toString('base64url'), /invalid shape/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"q":[1]}').toString('base64url'), /invalid PCT schedule/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"q":[1],"x":[-2]}').toString('base64url'), /invalid PCT change points/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"019","a":[],"h":3}}').toString('base64url'), /invalid fault schedule \(storage codes\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"01","a":[[1]],"h":3}}').toString('base64url'), /invalid fault schedule \(aborts\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"01","a":[],"h":-1}}').toString('base64url'), /invalid fault schedule \(heal step\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"01","a":[],"h":3,"d":"15"}}').toString('base64url'), /invalid fault schedule \(delete codes\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"01","a":[],"h":3,"c":7}}').toString('base64url'), /invalid fault schedule \(compare-and-set codes\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"01","a":[],"h":3,"d":" 1"}}').toString('base64url'), /invalid fault schedule \(delete codes\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"01","a":[],"h":3,"d":null}}').toString('base64url'), /invalid fault schedule \(delete codes\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"f":{"s":"0 1","a":[],"h":3}}').toString('base64url'), /invalid fault schedule \(storage codes\)/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"sl":[["0","0"]]}').toString('base64url'), /invalid sink loads/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"sl":[]}').toString('base64url'), /invalid sink loads/],
    ['sb1.' + Buffer.from('{"v":"off","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"sl":[["00"]]}').toString('base64url'), /invalid loads row/],
    // options the variant does not take (no registered variant takes one yet)
    ['sb1.' + Buffer.from('{"v":"barrier","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"vo":{"timeout":"inf"}}').toString('base64url'), /invalid variant options/],
    ['sb1.' + Buffer.from('{"v":"barrier","s":[1,1,1,1,8192,6000,100,1],"k":[0],"l":["0"],"p":"free","z":[],"c":[],"vo":[]}').toString('base64url'), /invalid variant options/],
  ])('rejects %s with a typed error naming the problem', (token, message) => {
    expect(() => decodeToken(token)).toThrow(ReplayTokenError);
    expect(() => decodeToken(token)).toThrow(message);
  });
});
