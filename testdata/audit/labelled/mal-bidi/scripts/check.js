const isAdmin = false;
if (isAdmin) { /*‮ } ⁦if (true)⁩ ⁦ */
  console.log('admin');
}
