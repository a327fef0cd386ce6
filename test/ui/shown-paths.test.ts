// Paths on the page: the home folder is written `~`, so the page is shorter and shows no user name
// (on a shared screen or in a screenshot); nothing else about a path changes.
import { expect, test } from 'vitest';
import { tildePaths } from '../../host/src/ui/views.js';

test('paths under the home folder are shown from ~; a folder that only starts with the same letters is not', () => {
  const home = '/home/ada';
  expect(tildePaths('/home/ada/.toolgate/audit.jsonl', home)).toBe('~/.toolgate/audit.jsonl');
  expect(tildePaths('policy set "p" from --policies /home/ada/p: /home/ada/p', home)).toBe(
    'policy set "p" from --policies ~/p: ~/p',
  );
  expect(tildePaths('/home/adam/notes.yaml', home)).toBe('/home/adam/notes.yaml');
  expect(tildePaths('/srv/home/ada/x', home)).toBe('/srv/home/ada/x');
  expect(tildePaths('/home/ada', home)).toBe('~');
  expect(tildePaths('/home/ada/x', '/home/ada/')).toBe('~/x');
  expect(tildePaths('/home/ada/x', '/')).toBe('/home/ada/x'); // a home of / would make every path ~
  expect(tildePaths('/home/a.a/x /home/aXa/y', '/home/a.a')).toBe('~/x /home/aXa/y'); // the name is literal
});
