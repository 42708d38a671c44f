import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
let t=Date.now();
const db = await PGlite.create({ extensions: { btree_gist } });
console.log('open', Date.now()-t);
await db.exec('create extension btree_gist; create table h(u int, d daterange, exclude using gist (u with =, d with &&))');
await db.query("insert into h values (1, '[2026-01-01,2026-01-03)')");
try { await db.query("insert into h values (1, '[2026-01-02,2026-01-04)')"); } catch(e) { console.log('excl', e.code, e.message) }
t=Date.now(); const dump = await db.dumpDataDir('none'); console.log('dump', Date.now()-t, dump.size);
t=Date.now(); const db2 = await PGlite.create({ loadDataDir: dump, extensions: { btree_gist } }); console.log('load', Date.now()-t);
console.log((await db2.query('select count(*) from h')).rows);
