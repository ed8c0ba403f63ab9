// What an async call rejected with, as "name: message" ("resolved" when it did not), for checks that
// compare k6's error texts.
export async function rejection(f) {
  try {
    await f();
    return 'resolved';
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}
